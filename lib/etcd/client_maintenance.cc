// etcd::Client's calls of etcd's Maintenance service: alarms, and the
// per-member calls (Status, Defragment, Hash, HashKV, MoveLeader, Snapshot).
#include "etcd/client.h"

#include <condition_variable>
#include <mutex>
#include <thread>

#include "etcd/client_impl.h"

namespace etcd {

base::Result<std::vector<Alarm>> Client::alarm_list() {
  pb::AlarmRequest req;
  req.set_action(pb::AlarmRequest::GET);
  auto r = impl_->any_unary<pb::AlarmResponse>("AlarmList", Resend::kRead,
                                               [&](Conn& c, grpc::ClientContext* ctx, pb::AlarmResponse* resp) {
                                                 return c.maintenance->Alarm(ctx, req, resp);
                                               });
  if (!r) return std::move(r).error();
  return to_alarms(r->alarms());
}

base::Result<std::vector<Alarm>> Client::alarm_list_at(const std::string& endpoint, std::optional<Deadline> deadline) {
  pb::AlarmRequest req;
  req.set_action(pb::AlarmRequest::GET);
  auto r = impl_->on<pb::AlarmResponse>(endpoint, "AlarmList", deadline,
                                        [&](Conn& c, grpc::ClientContext* ctx, pb::AlarmResponse* resp) {
                                          return c.maintenance->Alarm(ctx, req, resp);
                                        });
  if (!r) return std::move(r).error();
  return to_alarms(r->alarms());
}

base::Result<std::vector<Alarm>> Client::alarm_disarm(const Alarm& alarm) {
  pb::AlarmRequest req;
  req.set_action(pb::AlarmRequest::DEACTIVATE);
  req.set_memberid(alarm.member_id);
  req.set_alarm(static_cast<pb::AlarmType>(alarm.type));
  // Deactivating an alarm that is already gone is a no-op in etcd: safe to
  // send to another member after a timeout.
  auto r = impl_->any_unary<pb::AlarmResponse>("AlarmDisarm", Resend::kRead,
                                               [&](Conn& c, grpc::ClientContext* ctx, pb::AlarmResponse* resp) {
                                                 return c.maintenance->Alarm(ctx, req, resp);
                                               });
  if (!r) return on_member(std::move(r).error(), alarm.member_id);
  return to_alarms(r->alarms());
}

base::Result<std::vector<Alarm>> Client::alarm_disarm_all() {
  auto list = alarm_list();
  if (!list) return list;
  std::vector<Alarm> done;
  for (const auto& a : *list) {
    auto r = alarm_disarm(a);
    if (!r) return std::move(r).error();
    done.insert(done.end(), r->begin(), r->end());
  }
  return done;
}

base::Result<StatusInfo> Client::status(const std::string& endpoint, std::optional<Deadline> deadline) {
  pb::StatusRequest req;
  auto r = impl_->on<pb::StatusResponse>(endpoint, "Status", deadline,
                                         [&](Conn& c, grpc::ClientContext* ctx, pb::StatusResponse* resp) {
                                           return c.maintenance->Status(ctx, req, resp);
                                         });
  if (!r) return std::move(r).error();
  StatusInfo s;
  s.endpoint = endpoint;
  s.header = to_header(r->header());
  s.version = r->version();
  s.db_size = r->dbsize();
  s.db_size_in_use = r->dbsizeinuse();
  s.db_size_quota = r->dbsizequota();
  s.leader = r->leader();
  s.raft_index = r->raftindex();
  s.raft_term = r->raftterm();
  s.raft_applied_index = r->raftappliedindex();
  s.errors.assign(r->errors().begin(), r->errors().end());
  s.is_learner = r->islearner();
  s.storage_version = r->storageversion();
  return s;
}

base::Result<Header> Client::defragment(const std::string& endpoint, std::optional<Deadline> deadline) {
  pb::DefragmentRequest req;
  auto r = impl_->on<pb::DefragmentResponse>(endpoint, "Defragment", deadline,
                                             [&](Conn& c, grpc::ClientContext* ctx, pb::DefragmentResponse* resp) {
                                               return c.maintenance->Defragment(ctx, req, resp);
                                             });
  if (!r) return std::move(r).error();
  return to_header(r->header());
}

base::Result<HashInfo> Client::hash(const std::string& endpoint, std::optional<Deadline> deadline) {
  pb::HashRequest req;
  auto r = impl_->on<pb::HashResponse>(endpoint, "Hash", deadline,
                                       [&](Conn& c, grpc::ClientContext* ctx, pb::HashResponse* resp) {
                                         return c.maintenance->Hash(ctx, req, resp);
                                       });
  if (!r) return std::move(r).error();
  return HashInfo{to_header(r->header()), r->hash()};
}

base::Result<HashKVInfo> Client::hash_kv(const std::string& endpoint, std::int64_t revision,
                                        std::optional<Deadline> deadline) {
  pb::HashKVRequest req;
  req.set_revision(revision);
  auto r = impl_->on<pb::HashKVResponse>(endpoint, "HashKV", deadline,
                                         [&](Conn& c, grpc::ClientContext* ctx, pb::HashKVResponse* resp) {
                                           return c.maintenance->HashKV(ctx, req, resp);
                                         });
  if (!r) return std::move(r).error();
  return HashKVInfo{to_header(r->header()), r->hash(), r->compact_revision(), r->hash_revision()};
}

base::Result<Header> Client::move_leader(const std::string& leader_endpoint, std::uint64_t target_id,
                                        std::optional<Deadline> deadline) {
  pb::MoveLeaderRequest req;
  req.set_targetid(target_id);
  auto r = impl_->on<pb::MoveLeaderResponse>(leader_endpoint, "MoveLeader", deadline,
                                             [&](Conn& c, grpc::ClientContext* ctx, pb::MoveLeaderResponse* resp) {
                                               return c.maintenance->MoveLeader(ctx, req, resp);
                                             });
  if (!r) {
    auto e = std::move(r).error();
    if (e.reason != reason::kNotLeader) e.object = member_object({}, target_id);
    return e;
  }
  return to_header(r->header());
}

base::Result<SnapshotInfo> Client::snapshot(const std::string& endpoint, base::Sink& sink, SnapshotProgress progress,
                                           std::optional<Deadline> deadline, std::chrono::milliseconds stall_timeout) {
  auto c = impl_->conn(endpoint);
  if (!c) {
    sink.abort();
    return std::move(c).error();
  }
  if (auto t = impl_->ensure_token(); !t) {
    sink.abort();
    return std::move(t).error();
  }
  const std::string object = endpoint_object(endpoint);
  for (int attempt = 0;; ++attempt) {
    grpc::ClientContext ctx;
    if (deadline) ctx.set_deadline(*deadline);
    std::string tok = impl_->current_token();
    if (!tok.empty()) ctx.AddMetadata("token", tok);
    pb::SnapshotRequest req;
    // The watchdog cancels the call when no message arrived for the stall
    // timeout; Read() then returns false and Finish() says Cancelled.
    std::mutex wd_mu;
    std::condition_variable wd_cv;
    bool wd_done = false, stalled = false;
    auto last = std::chrono::steady_clock::now();
    std::thread watchdog;
    if (stall_timeout.count() > 0) {
      watchdog = std::thread([&] {
        std::unique_lock lock(wd_mu);
        while (!wd_done) {
          if (std::chrono::steady_clock::now() - last >= stall_timeout) {
            stalled = true;
            ctx.TryCancel();
            return;
          }
          wd_cv.wait_for(lock, std::chrono::milliseconds(100));
        }
      });
    }
    struct Join {
      std::thread& t;
      std::mutex& mu;
      std::condition_variable& cv;
      bool& done;
      ~Join() {
        {
          std::lock_guard lock(mu);
          done = true;
        }
        cv.notify_all();
        if (t.joinable()) t.join();
      }
    } join{watchdog, wd_mu, wd_cv, wd_done};
    auto reader = (*c)->maintenance->Snapshot(&ctx, req);
    pb::SnapshotResponse msg;
    std::optional<SnapshotReceiver> rx;  // made on the first message: a refused call writes nothing
    SnapshotInfo info;
    info.endpoint = endpoint;
    base::Status write_failed;
    while (reader->Read(&msg)) {
      if (stall_timeout.count() > 0) {
        std::lock_guard lock(wd_mu);
        last = std::chrono::steady_clock::now();
      }
      if (!rx) rx.emplace(sink, progress, object);
      // etcd leaves the header of snapshot messages empty in 3.4-3.6; take
      // one if a server ever sends it.
      if (msg.has_header() && msg.header().member_id() != 0) info.header = to_header(msg.header());
      if (!msg.version().empty()) info.version = msg.version();
      if (auto st = rx->add(msg.blob(), msg.remaining_bytes()); !st) {
        write_failed = std::move(st);
        ctx.TryCancel();
        break;
      }
    }
    grpc::Status st = reader->Finish();
    if (!write_failed) return std::move(write_failed).error();
    bool was_stalled;
    {
      std::lock_guard lock(wd_mu);
      was_stalled = stalled;
    }
    if (!st.ok()) {
      auto e = from_status(st, "Snapshot", object);
      if (was_stalled) {
        e = base::make_error(base::ErrorKind::Timeout,
                            "the snapshot stream stalled: nothing arrived for " +
                                std::to_string(stall_timeout.count()) + " ms",
                            object, "the member may be paused or overloaded; try another with --member");
        e.reason = reason::kDeadlineExceeded;
      }
      if (!rx && attempt == 0 && e.reason == reason::kInvalidAuthToken) {
        auto r = impl_->refresh_token(tok);
        if (r && r.value()) continue;
      }
      if (rx) {
        rx->abort();
      } else {
        sink.abort();
      }
      return e;
    }
    if (!rx) {
      sink.abort();
      auto e = base::make_error(base::ErrorKind::Failed, "snapshot stream was empty", object);
      e.reason = reason::kSnapshotCorrupt;
      return e;
    }
    if (auto f = rx->finish(); !f) return std::move(f).error();
    info.bytes = rx->bytes();
    info.sha256 = rx->sha256_hex();
    info.stream_sha256 = rx->stream_sha256_hex();
    return info;
  }
}

}  // namespace etcd
