#include "backup/stream_backup.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <sstream>

#include "backup/fanout_sink.h"
#include "backup/file_sink.h"
#include "base/output_path.h"
#include "base/text.h"
#include "operator/backup_names.h"

namespace backup {

namespace {

using base::ErrorKind;

// Remembers whether the destinations failed, so that a destination's error
// ends the backup while a member's error moves on to the next member.
class WatchedSink final : public base::Sink {
 public:
  WatchedSink(base::Sink& next, const std::function<bool()>& cancelled) : next_(next), cancelled_(cancelled) {}
  base::Status write(std::string_view data) override {
    if (cancelled_ && cancelled_()) {
      failed_ = true;
      return base::make_error(ErrorKind::Interrupted, "backup stopped before it was complete; nothing was kept");
    }
    return note(next_.write(data));
  }
  base::Status commit() override { return note(next_.commit()); }
  void written_sha256(const base::Digest& d) override { next_.written_sha256(d); }
  void abort() noexcept override { next_.abort(); }
  bool failed() const { return failed_; }

 private:
  base::Status note(base::Status s) {
    if (!s) failed_ = true;
    return s;
  }
  base::Sink& next_;
  const std::function<bool()>& cancelled_;
  bool failed_ = false;
};

// docs/rules.md#safety-backup for the local artefact: an existing file is replaced only when its
// .uid companion names the same cluster. Both are regular files by now (local_backup_path).
base::Status check_file_owner(const std::string& path, const std::string& uid) {
  if (base::path_kind(path) == base::PathKind::Absent) return {};
  std::ifstream f(op::snapshot_uid_file(path));
  std::stringstream ss;
  if (f) ss << f.rdbuf();
  std::string have = base::trim(ss.str());
  if (have == uid) return {};
  std::string whose = have.empty() ? "no " + op::snapshot_uid_file(path) + " names its cluster"
                                   : "it belongs to cluster UID \"" + have + "\"";
  return base::make_error(ErrorKind::Refused, "exists and was not written for this cluster (" + whose + ")",
                         "file \"" + path + "\"", "move it away or choose another --backup-dir");
}

base::Status write_uid_file(const std::string& path, const std::string& uid) {
  auto f = FileSink::create(op::snapshot_uid_file(path));
  if (!f) return std::move(f).error();
  if (auto s = (*f)->write(uid); !s) return s;
  return (*f)->commit();
}

struct Candidate {
  std::string endpoint;
  etcd::StatusInfo status;
};

}  // namespace

base::Result<std::string> local_backup_path(const std::string& dir, const std::string& ns, const std::string& cluster) {
  const base::PathKind kind = base::target_kind(dir);
  if (kind != base::PathKind::Directory) {
    return base::make_error(ErrorKind::Usage,
                           kind == base::PathKind::Absent ? std::string("is not a directory")
                                                          : "is " + std::string(base::describe(kind)) + ", not a directory",
                           "backup directory \"" + dir + "\"",
                           kind == base::PathKind::Absent ? "create it first" : "choose another --backup-dir");
  }
  std::string path = dir + (dir.back() == '/' ? "" : "/") + op::migration_snapshot_file(ns, cluster);
  // docs/rules.md#files-the-user-names: the snapshot and its owner mark, each written through a .part.
  const std::string hint = "move it away or choose another --backup-dir";
  if (auto s = base::check_output_file(path, hint); !s) return std::move(s).error();
  if (auto s = base::check_output_file(op::snapshot_uid_file(path), hint); !s) return std::move(s).error();
  return path;
}

base::Result<StreamBackupResult> stream_backup(etcd::Client& client, const StreamBackupRequest& req) {
  std::string object = "etcdcluster \"" + req.ns + "/" + req.cluster + "\"";
  if (req.dir.empty() && !req.s3) {
    return base::make_error(ErrorKind::Usage, "no backup destination", object, "give a backup directory or S3");
  }
  if (req.endpoints.empty()) return base::make_error(ErrorKind::Usage, "no etcd endpoint to back up from", object);
  if (req.cluster_uid.empty()) return base::make_error(ErrorKind::Usage, "no cluster UID to mark the backup", object);

  // Destinations first: a wrong one fails before etcd is read at all.
  const std::string file_name = op::migration_snapshot_file(req.ns, req.cluster);
  std::string path;
  if (!req.dir.empty()) {
    auto local = local_backup_path(req.dir, req.ns, req.cluster);
    if (!local) return std::move(local).error();
    path = std::move(*local);
    if (auto s = check_file_owner(path, req.cluster_uid); !s) return std::move(s).error();
  }
  std::string key;
  if (req.s3) key = op::snapshot_object_key(req.s3->key_prefix, file_name);

  // Members: healthy voters, followers first.
  std::vector<Candidate> candidates;
  StreamBackupResult out;
  for (auto& r : client.status_all(req.endpoints)) {
    if (!r.result) {
      out.passed_over.push_back(r.endpoint + ": " + r.result.error().one_line());
    } else if (r.result->is_learner) {
      out.passed_over.push_back(r.endpoint + ": a learner");
    } else if (!r.result->errors.empty()) {
      out.passed_over.push_back(r.endpoint + ": reports " + r.result->errors.front());
    } else {
      candidates.push_back({r.endpoint, *r.result});
    }
  }
  std::stable_partition(candidates.begin(), candidates.end(), [](const Candidate& c) { return !c.status.is_leader(); });
  if (candidates.empty()) {
    std::string why;
    for (const auto& p : out.passed_over) why += (why.empty() ? "" : "; ") + p;
    return base::make_error(ErrorKind::CannotConnect, "no healthy member to take the snapshot from: " + why, object);
  }

  base::Error last;
  bool uid_written = false;
  for (auto& cand : candidates) {
    // A follower may lag behind the leader. A linearizable read on it first
    // (etcd's ReadIndex) makes it apply everything committed so far, so the
    // snapshot holds every write acknowledged before the backup began, and
    // the read's revision is a true lower bound of the snapshot's.
    etcd::RangeOptions barrier;
    barrier.count_only = true;
    auto read = client.range_at(cand.endpoint, "/", barrier);
    if (!read) {
      last = std::move(read).error();
      out.passed_over.push_back(cand.endpoint + ": " + last.one_line());
      continue;
    }
    cand.status.header.revision = std::max(cand.status.header.revision, read->header.revision);
    std::unique_ptr<S3Sink> s3;
    std::unique_ptr<FileSink> file;
    std::vector<base::Sink*> sinks;
    if (req.s3) {
      S3SinkOptions o;
      o.metadata = {{std::string(op::kSnapshotMetaUid), req.cluster_uid},
                    {std::string(op::kSnapshotMetaRevision), std::to_string(cand.status.header.revision)}};
      o.sha256_metadata_key = std::string(op::kSnapshotMetaSha256);
      o.owner_key = std::string(op::kSnapshotMetaUid);
      o.part_size = req.s3->part_size;
      o.parts_in_flight = req.s3->parts_in_flight;
      o.checksum_crc32c = req.s3->checksum_crc32c;
      o.expected_size = static_cast<std::uint64_t>(std::max<std::int64_t>(cand.status.db_size, 0));
      auto r = S3Sink::create(req.s3->location, req.s3->credentials, key, std::move(o));
      if (!r) return std::move(r).error();
      s3 = std::move(*r);
      sinks.push_back(s3.get());  // remote first: it is the one likely to fail at commit
    }
    if (!path.empty()) {
      // The owner mark goes first (after S3 has accepted us): a killed run
      // then leaves a file the next run may replace, never one it refuses.
      if (!uid_written) {
        if (auto st = write_uid_file(path, req.cluster_uid); !st) return std::move(st).error();
        uid_written = true;
      }
      auto r = FileSink::create(path);
      if (!r) return std::move(r).error();
      file = std::move(*r);
      sinks.push_back(file.get());
    }
    FanoutSink fan(sinks);
    WatchedSink watched(fan, req.cancelled);
    etcd::SnapshotProgress progress;
    if (req.progress) {
      progress = [&](std::uint64_t done, std::uint64_t total) { req.progress(cand.endpoint, done, total); };
    }
    auto info = client.snapshot(cand.endpoint, watched, progress, req.deadline);
    if (info) {
      out.endpoint = cand.endpoint;
      out.member_id = cand.status.header.member_id;
      out.revision = cand.status.header.revision;
      out.bytes = info->bytes;
      out.sha256 = info->sha256;
      out.stored_sha256 = info->stream_sha256;
      if (s3) {
        out.s3 = s3->result();
        out.destinations.push_back(s3->uri());
      }
      if (file) {
        out.file = path;
        out.destinations.push_back(path);
      }
      return out;
    }
    fan.abort();
    if (watched.failed()) {
      auto e = std::move(info).error();
      if (e.object.empty()) e.object = object;
      return e;
    }
    last = std::move(info).error();
    out.passed_over.push_back(cand.endpoint + ": " + last.one_line());
  }
  return last;
}

}  // namespace backup
