// Over 600 lines on purpose: the gRPC channels, stubs, deadlines and
// endpoint fail-over are private to this file, and every etcd call of the
// suite is a short method on top of them; splitting would publish those
// internals in a header.
#include "etcd/client.h"

#include <grpc/support/log.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "etcd/endpoint.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "etcd/server_version.h"
#include "etcd/tls.h"
#include "rpc.grpc.pb.h"

namespace etcd {

namespace pb = etcdserverpb;
using Clock = std::chrono::system_clock;

const char* alarm_name(AlarmType t) {
  switch (t) {
    case AlarmType::NoSpace: return "NOSPACE";
    case AlarmType::Corrupt: return "CORRUPT";
    case AlarmType::None: break;
  }
  return "NONE";
}

namespace {

Header to_header(const pb::ResponseHeader& h) {
  return {h.cluster_id(), h.member_id(), h.revision(), h.raft_term()};
}

Member to_member(const pb::Member& m) {
  Member out;
  out.id = m.id();
  out.name = m.name();
  out.peer_urls.assign(m.peerurls().begin(), m.peerurls().end());
  out.client_urls.assign(m.clienturls().begin(), m.clienturls().end());
  out.is_learner = m.islearner();
  return out;
}

template <class Repeated>
std::vector<Member> to_members(const Repeated& ms) {
  std::vector<Member> out;
  for (const auto& m : ms) out.push_back(to_member(m));
  return out;
}

template <class Repeated>
std::vector<Alarm> to_alarms(const Repeated& as) {
  std::vector<Alarm> out;
  for (const auto& a : as) out.push_back({a.memberid(), static_cast<AlarmType>(a.alarm())});
  return out;
}

struct Conn {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::KV::Stub> kv;
  std::unique_ptr<pb::Cluster::Stub> cluster;
  std::unique_ptr<pb::Maintenance::Stub> maintenance;
  std::unique_ptr<pb::Auth::Stub> auth;
};

bool retry_elsewhere(const base::Error& e, bool idempotent) {
  // Leader changed and too many requests come with code Unavailable and
  // were always retried as such; their own reasons only change the hint.
  if (e.reason == reason::kUnavailable || e.reason == reason::kLearnerNotSupported ||
      e.reason == reason::kLeaderChanged || e.reason == reason::kTooManyRequests)
    return true;
  // A timed-out write may still apply; only reads move on.
  return idempotent && e.reason == reason::kDeadlineExceeded;
}

}  // namespace

struct Client::Impl {
  Config cfg;
  TlsMaterial tls;
  bool default_tls = false;
  std::shared_ptr<grpc::ChannelCredentials> creds;

  std::mutex mu;  // guards conns and preferred
  std::map<std::string, std::shared_ptr<Conn>> conns;
  std::size_t preferred = 0;

  std::mutex auth_mu;  // guards the fields below; held while authenticating
  std::string user;
  std::string password;
  std::string token;
  bool auth_off = false;  // etcd said authentication is not enabled
  std::atomic<bool> has_credentials{false};

  // One attempt budget of a cluster call: connecting plus answering.
  Deadline attempt_deadline() const { return Clock::now() + cfg.dial_timeout + cfg.call_timeout; }

  base::Result<std::shared_ptr<Conn>> conn(const std::string& url) {
    auto ep = parse_endpoint(url, default_tls);
    if (!ep) return std::move(ep).error();
    {
      std::lock_guard lock(mu);
      if (auto it = conns.find(url); it != conns.end()) return it->second;
    }
    std::string target = ep->target;
    if (cfg.dial) {
      // Outside the lock: setting up a forward may take seconds, and other
      // members' calls go on meanwhile.
      auto t = cfg.dial(url);
      if (!t) return std::move(t).error();
      target = *t;
    }
    std::lock_guard lock(mu);
    if (auto it = conns.find(url); it != conns.end()) return it->second;
    // Not auth_mu: logging in dials, and holds auth_mu while doing so.
    if (!ep->secure && has_credentials.load()) {
      auto e = base::make_error(base::ErrorKind::Refused, "refusing to send credentials over plaintext",
                               endpoint_object(url), "use an https endpoint with the cluster's CA");
      e.reason = reason::kPlaintextCredentials;
      return e;
    }
    grpc::ChannelArguments args;
    // Reconnect promptly after a member restarts, and give up a connection
    // attempt (TCP, TLS and HTTP/2 handshakes) after the dial timeout.
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, static_cast<int>(cfg.dial_timeout.count()));
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    args.SetMaxReceiveMessageSize(INT_MAX);
    // A fixed receive window instead of BDP probing, which grows it with
    // the sender's speed: a snapshot stream arriving faster than it is
    // written then buffers at most this much, so memory stays flat in the db
    // size (bench/snapshot.sh: ~100 MiB peak for 400 MB with probing, ~21
    // MiB without, at the same throughput).
    args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
    args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 1 << 20);
    std::shared_ptr<grpc::ChannelCredentials> cc = grpc::InsecureChannelCredentials();
    if (ep->secure) {
      if (!creds) creds = channel_credentials(tls);
      cc = creds;
      auto named = cfg.tls.server_names.find(url);
      const std::string& name = named != cfg.tls.server_names.end() ? named->second : tls.server_name;
      if (!name.empty()) args.SetSslTargetNameOverride(name);
    }
    auto c = std::make_shared<Conn>();
    c->channel = grpc::CreateCustomChannel(grpc_target(target), cc, args);
    c->kv = pb::KV::NewStub(c->channel);
    c->cluster = pb::Cluster::NewStub(c->channel);
    c->maintenance = pb::Maintenance::NewStub(c->channel);
    c->auth = pb::Auth::NewStub(c->channel);
    conns.emplace(url, c);
    return c;
  }

  std::string current_token() {
    std::lock_guard lock(auth_mu);
    return token;
  }

  // One call on one connection with the token; authenticates again once when
  // etcd calls the token invalid (it expired, or the member restarted).
  template <class Resp, class F>
  base::Result<Resp> once(Conn& c, const std::string& endpoint, const char* call, Deadline d, F&& f,
                         bool with_token = true) {
    for (int attempt = 0;; ++attempt) {
      grpc::ClientContext ctx;
      ctx.set_deadline(d);
      std::string tok = with_token ? current_token() : std::string();
      if (!tok.empty()) ctx.AddMetadata("token", tok);
      Resp resp;
      grpc::Status st = f(c, &ctx, &resp);
      if (st.ok()) return resp;
      auto e = from_status(st, call, endpoint_object(endpoint));
      if (with_token && attempt == 0 && e.reason == reason::kInvalidAuthToken) {
        auto r = refresh_token(tok);
        if (!r) return std::move(r).error();
        if (r.value()) continue;
      }
      return e;
    }
  }

  // Runs fn on the endpoints of the config, starting with the last that
  // worked, until one answers or fails in a way another member would not fix.
  template <class T, class F>
  base::Result<T> any(const char* call, bool idempotent, F&& fn) {
    const auto& eps = cfg.endpoints;
    std::size_t start;
    {
      std::lock_guard lock(mu);
      start = preferred;
    }
    std::vector<base::Error> failures;
    for (std::size_t k = 0; k < eps.size(); ++k) {
      std::size_t i = (start + k) % eps.size();
      auto c = conn(eps[i]);
      if (!c) return std::move(c).error();
      base::Result<T> r = fn(**c, eps[i], attempt_deadline());
      if (r) {
        std::lock_guard lock(mu);
        preferred = i;
        return r;
      }
      if (!retry_elsewhere(r.error(), idempotent)) return r;
      failures.push_back(std::move(r).error());
    }
    bool all_unreachable = true;
    for (const auto& f : failures) all_unreachable = all_unreachable && f.kind != base::ErrorKind::Failed;
    if (!all_unreachable || failures.size() == 1) return failures.back();
    auto e = base::make_error(base::ErrorKind::CannotConnect, std::string(call) + ": no etcd endpoint answered", {},
                             "check that the members run and the endpoints, CA and server name are right");
    e.reason = failures.back().reason;
    e.status = failures.back().status;
    for (const auto& f : failures) e.causes.push_back(f.one_line());
    return e;
  }

  // Unary cluster call: any endpoint, with the token.
  template <class Resp, class F>
  base::Result<Resp> any_unary(const char* call, bool idempotent, F&& f) {
    if (auto t = ensure_token(); !t) return std::move(t).error();
    return any<Resp>(call, idempotent, [&](Conn& c, const std::string& ep, Deadline d) {
      return once<Resp>(c, ep, call, d, f);
    });
  }

  // Unary per-member call: exactly that endpoint.
  template <class Resp, class F>
  base::Result<Resp> on(const std::string& endpoint, const char* call, std::optional<Deadline> d, F&& f) {
    auto c = conn(endpoint);
    if (!c) return std::move(c).error();
    if (auto t = ensure_token(); !t) return std::move(t).error();
    return once<Resp>(**c, endpoint, call, d.value_or(Clock::now() + cfg.call_timeout), f);
  }

  base::Result<std::string> authenticate_raw(const std::string& u, const std::string& p) {
    pb::AuthenticateRequest req;
    req.set_name(u);
    req.set_password(p);
    auto r = any<pb::AuthenticateResponse>("Authenticate", true, [&](Conn& c, const std::string& ep, Deadline d) {
      return once<pb::AuthenticateResponse>(
          c, ep, "Authenticate", d,
          [&](Conn& cc, grpc::ClientContext* ctx, pb::AuthenticateResponse* resp) {
            return cc.auth->Authenticate(ctx, req, resp);
          },
          false);
    });
    if (!r) {
      auto e = std::move(r).error();
      if (e.object.empty()) e.object = "user \"" + u + "\"";
      return e;
    }
    return r->token();
  }

  // Caller holds auth_mu.
  base::Status login_locked() {
    auto t = authenticate_raw(user, password);
    if (!t) {
      if (t.error().reason == reason::kAuthNotEnabled) {
        auth_off = true;
        return {};
      }
      return std::move(t).error();
    }
    token = std::move(t.value());
    auth_off = false;
    return {};
  }

  base::Status ensure_token() {
    std::lock_guard lock(auth_mu);
    if (user.empty() || !token.empty() || auth_off) return {};
    return login_locked();
  }

  // Answers true when a fresh token is there to retry with.
  base::Result<bool> refresh_token(const std::string& stale) {
    std::lock_guard lock(auth_mu);
    if (user.empty()) return false;
    if (token != stale && !token.empty()) return true;  // another thread already did
    token.clear();
    auth_off = false;
    if (auto st = login_locked(); !st) return std::move(st).error();
    return !token.empty();
  }
};

namespace {

void drop_grpc_log(gpr_log_func_args* /*unused*/) {}

// gRPC logs a refused handshake or a dropped connection on stderr itself,
// and the same failure then comes back to us as the call's Status, which the
// program renders once. Silenced unless the user asks gRPC for its logs.
void quiet_grpc_logs() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("GRPC_VERBOSITY") == nullptr && std::getenv("GRPC_TRACE") == nullptr) {
      gpr_set_log_function(drop_grpc_log);
    }
  });
}

}  // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

base::Result<std::unique_ptr<Client>> Client::create(Config config) {
  quiet_grpc_logs();
  auto impl = std::make_unique<Impl>();
  if (config.endpoints.empty()) {
    return base::make_error(base::ErrorKind::Usage, "no etcd endpoint given", {}, "give at least one client URL");
  }
  impl->default_tls = tls_requested(config.tls);
  bool any_secure = false;
  for (const auto& url : config.endpoints) {
    auto ep = parse_endpoint(url, impl->default_tls);
    if (!ep) return std::move(ep).error();
    any_secure = any_secure || ep->secure;
    if (!ep->secure && !config.user.empty()) {
      auto e = base::make_error(base::ErrorKind::Refused, "refusing to send credentials over plaintext",
                               endpoint_object(url), "use https endpoints with the cluster's CA");
      e.reason = reason::kPlaintextCredentials;
      return e;
    }
  }
  if (any_secure) {
    auto m = load_tls(config.tls);
    if (!m) return std::move(m).error();
    impl->tls = std::move(m.value());
  }
  impl->user = config.user;
  impl->password = config.password;
  impl->has_credentials = !config.user.empty();
  // The password lives in Impl only; the config copy callers can read back
  // does not keep it.
  config.password.clear();
  impl->cfg = std::move(config);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const Config& Client::config() const { return impl_->cfg; }
Deadline Client::default_deadline() const { return Clock::now() + impl_->cfg.call_timeout; }

// ---- membership

base::Result<MemberList> Client::member_list(bool linearizable) {
  if (auto t = impl_->ensure_token(); !t) return std::move(t).error();
  pb::MemberListRequest req;
  req.set_linearizable(linearizable);
  auto r = impl_->any<pb::MemberListResponse>("MemberList", true, [&](Conn& c, const std::string& ep, Deadline d) {
    auto ask = [&] {
      return impl_->once<pb::MemberListResponse>(c, ep, "MemberList", d,
                                                 [&](Conn& cc, grpc::ClientContext* ctx, pb::MemberListResponse* resp) {
                                                   return cc.cluster->MemberList(ctx, req, resp);
                                                 });
    };
    if (!linearizable) return ask();
    // etcd 3.5+ reads the membership linearizably when asked (one ReadIndex
    // round); 3.4 ignores the field. The member's Status, a local answer,
    // says which, asked at the same time: 3.5+ costs no round trip more
    // (docs/member-list.md).
    std::optional<base::Result<pb::StatusResponse>> st;
    std::optional<base::Result<pb::MemberListResponse>> first;
    {
      // Joined when the scope ends, also if ask() throws.
      std::jthread status([&] {
        st.emplace(impl_->once<pb::StatusResponse>(c, ep, "Status", d,
                                                   [&](Conn& cc, grpc::ClientContext* ctx, pb::StatusResponse* resp) {
                                                     return cc.maintenance->Status(ctx, pb::StatusRequest(), resp);
                                                   }));
      });
      first.emplace(ask());
    }
    if (!*first || (*st && has_linearizable_member_list((*st)->version()))) return std::move(*first);
    // etcd 3.4, or a version not known: a linearizable Range on the same
    // member is the barrier (it returns only once that member has applied
    // everything committed before it), then MemberList again.
    pb::RangeRequest barrier;
    barrier.set_key(std::string(1, '\0'));
    barrier.set_count_only(true);
    auto b = impl_->once<pb::RangeResponse>(c, ep, "MemberList", d,
                                            [&](Conn& cc, grpc::ClientContext* ctx, pb::RangeResponse* resp) {
                                              return cc.kv->Range(ctx, barrier, resp);
                                            });
    if (!b) return base::Result<pb::MemberListResponse>(std::move(b).error());
    return ask();
  });
  if (!r) return std::move(r).error();
  return MemberList{to_header(r->header()), to_members(r->members())};
}

base::Result<MemberAddResult> Client::member_add(const std::vector<std::string>& peer_urls, bool as_learner) {
  pb::MemberAddRequest req;
  for (const auto& u : peer_urls) req.add_peerurls(u);
  req.set_islearner(as_learner);
  auto r = impl_->any_unary<pb::MemberAddResponse>(
      "MemberAdd", false, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberAddResponse* resp) {
        return c.cluster->MemberAdd(ctx, req, resp);
      });
  if (!r) {
    auto e = std::move(r).error();
    std::string urls;
    for (const auto& u : peer_urls) urls += (urls.empty() ? "" : ",") + u;
    e.object = "member with peer URLs " + urls;
    return e;
  }
  return MemberAddResult{to_header(r->header()), to_member(r->member()), to_members(r->members())};
}

namespace {
base::Error on_member(base::Error e, std::uint64_t id) {
  e.object = member_object({}, id);
  return e;
}
}  // namespace

base::Result<std::vector<Member>> Client::member_remove(std::uint64_t id) {
  pb::MemberRemoveRequest req;
  req.set_id(id);
  auto r = impl_->any_unary<pb::MemberRemoveResponse>(
      "MemberRemove", false, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberRemoveResponse* resp) {
        return c.cluster->MemberRemove(ctx, req, resp);
      });
  if (!r) return on_member(std::move(r).error(), id);
  return to_members(r->members());
}

base::Result<std::vector<Member>> Client::member_update(std::uint64_t id, const std::vector<std::string>& peer_urls) {
  pb::MemberUpdateRequest req;
  req.set_id(id);
  for (const auto& u : peer_urls) req.add_peerurls(u);
  auto r = impl_->any_unary<pb::MemberUpdateResponse>(
      "MemberUpdate", false, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberUpdateResponse* resp) {
        return c.cluster->MemberUpdate(ctx, req, resp);
      });
  if (!r) return on_member(std::move(r).error(), id);
  return to_members(r->members());
}

base::Result<std::vector<Member>> Client::member_promote(std::uint64_t id) {
  pb::MemberPromoteRequest req;
  req.set_id(id);
  auto r = impl_->any_unary<pb::MemberPromoteResponse>(
      "MemberPromote", false, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberPromoteResponse* resp) {
        return c.cluster->MemberPromote(ctx, req, resp);
      });
  if (!r) return on_member(std::move(r).error(), id);
  return to_members(r->members());
}

// ---- alarms

base::Result<std::vector<Alarm>> Client::alarm_list() {
  pb::AlarmRequest req;
  req.set_action(pb::AlarmRequest::GET);
  auto r = impl_->any_unary<pb::AlarmResponse>("AlarmList", true,
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
  auto r = impl_->any_unary<pb::AlarmResponse>("AlarmDisarm", true,
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

// ---- KV

namespace {

pb::RangeRequest range_request(const std::string& key, const RangeOptions& o) {
  pb::RangeRequest req;
  req.set_key(key);
  req.set_range_end(o.range_end);
  req.set_limit(o.limit);
  req.set_revision(o.revision);
  req.set_serializable(o.serializable);
  req.set_keys_only(o.keys_only);
  req.set_count_only(o.count_only);
  return req;
}

RangeResult to_range_result(const pb::RangeResponse& r) {
  RangeResult out;
  out.header = to_header(r.header());
  out.more = r.more();
  out.count = r.count();
  for (const auto& kv : r.kvs()) {
    out.kvs.push_back({kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.version(), kv.lease()});
  }
  return out;
}

}  // namespace

base::Result<RangeResult> Client::range(const std::string& key, const RangeOptions& o) {
  const pb::RangeRequest req = range_request(key, o);
  auto r = impl_->any_unary<pb::RangeResponse>("Range", true,
                                               [&](Conn& c, grpc::ClientContext* ctx, pb::RangeResponse* resp) {
                                                 return c.kv->Range(ctx, req, resp);
                                               });
  if (!r) return std::move(r).error();
  return to_range_result(*r);
}

base::Result<RangeResult> Client::range_at(const std::string& endpoint, const std::string& key,
                                          const RangeOptions& o, std::optional<Deadline> deadline) {
  const pb::RangeRequest req = range_request(key, o);
  auto r = impl_->on<pb::RangeResponse>(endpoint, "Range", deadline,
                                        [&](Conn& c, grpc::ClientContext* ctx, pb::RangeResponse* resp) {
                                          return c.kv->Range(ctx, req, resp);
                                        });
  if (!r) return std::move(r).error();
  return to_range_result(*r);
}

base::Result<Header> Client::put(const std::string& key, const std::string& value) {
  pb::PutRequest req;
  req.set_key(key);
  req.set_value(value);
  auto r = impl_->any_unary<pb::PutResponse>("Put", false,
                                             [&](Conn& c, grpc::ClientContext* ctx, pb::PutResponse* resp) {
                                               return c.kv->Put(ctx, req, resp);
                                             });
  if (!r) return std::move(r).error();
  return to_header(r->header());
}

base::Result<std::int64_t> Client::delete_range(const std::string& key, const std::string& range_end) {
  pb::DeleteRangeRequest req;
  req.set_key(key);
  req.set_range_end(range_end);
  auto r = impl_->any_unary<pb::DeleteRangeResponse>(
      "DeleteRange", false, [&](Conn& c, grpc::ClientContext* ctx, pb::DeleteRangeResponse* resp) {
        return c.kv->DeleteRange(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  return r->deleted();
}

base::Result<Header> Client::compact(std::int64_t revision, bool physical) {
  pb::CompactionRequest req;
  req.set_revision(revision);
  req.set_physical(physical);
  auto r = impl_->any_unary<pb::CompactionResponse>(
      "Compact", true, [&](Conn& c, grpc::ClientContext* ctx, pb::CompactionResponse* resp) {
        return c.kv->Compact(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  return to_header(r->header());
}

// ---- auth

namespace {
base::Error on_user(base::Error e, const std::string& name) {
  e.object = "user \"" + name + "\"";
  return e;
}
}  // namespace

base::Result<bool> Client::auth_status() {
  pb::AuthStatusRequest req;
  auto r = impl_->any_unary<pb::AuthStatusResponse>(
      "AuthStatus", true, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthStatusResponse* resp) {
        return c.auth->AuthStatus(ctx, req, resp);
      });
  if (!r) {
    auto e = std::move(r).error();
    if (e.status == static_cast<int>(grpc::StatusCode::UNIMPLEMENTED)) e.reason = "Unimplemented";
    return e;
  }
  return r->enabled();
}

base::Status Client::auth_enable() {
  pb::AuthEnableRequest req;
  auto r = impl_->any_unary<pb::AuthEnableResponse>(
      "AuthEnable", false, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthEnableResponse* resp) {
        return c.auth->AuthEnable(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  return {};
}

base::Status Client::auth_disable() {
  pb::AuthDisableRequest req;
  auto r = impl_->any_unary<pb::AuthDisableResponse>(
      "AuthDisable", false, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthDisableResponse* resp) {
        return c.auth->AuthDisable(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  // Tokens die with auth; a later enable needs a fresh login.
  std::lock_guard lock(impl_->auth_mu);
  impl_->token.clear();
  return {};
}

base::Status Client::authenticate(const std::string& user, const std::string& password) {
  for (const auto& url : impl_->cfg.endpoints) {
    auto ep = parse_endpoint(url, impl_->default_tls);
    if (ep && !ep->secure) {
      auto e = base::make_error(base::ErrorKind::Refused, "refusing to send credentials over plaintext",
                               endpoint_object(url), "use https endpoints with the cluster's CA");
      e.reason = reason::kPlaintextCredentials;
      return e;
    }
  }
  auto t = impl_->authenticate_raw(user, password);
  if (!t) return on_user(std::move(t).error(), user);
  impl_->has_credentials = true;
  std::lock_guard lock(impl_->auth_mu);
  impl_->user = user;
  impl_->password = password;
  impl_->token = std::move(t.value());
  impl_->auth_off = false;
  return {};
}

base::Status Client::user_add(const std::string& name, const std::optional<std::string>& password) {
  pb::AuthUserAddRequest req;
  req.set_name(name);
  if (password) {
    req.set_password(*password);
  } else {
    req.mutable_options()->set_no_password(true);
  }
  auto r = impl_->any_unary<pb::AuthUserAddResponse>(
      "UserAdd", false, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserAddResponse* resp) {
        return c.auth->UserAdd(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return {};
}

base::Result<std::vector<std::string>> Client::user_get(const std::string& name) {
  pb::AuthUserGetRequest req;
  req.set_name(name);
  auto r = impl_->any_unary<pb::AuthUserGetResponse>(
      "UserGet", true, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserGetResponse* resp) {
        return c.auth->UserGet(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return std::vector<std::string>(r->roles().begin(), r->roles().end());
}

base::Status Client::user_delete(const std::string& name) {
  pb::AuthUserDeleteRequest req;
  req.set_name(name);
  auto r = impl_->any_unary<pb::AuthUserDeleteResponse>(
      "UserDelete", false, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserDeleteResponse* resp) {
        return c.auth->UserDelete(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return {};
}

base::Status Client::user_change_password(const std::string& name, const std::string& password) {
  pb::AuthUserChangePasswordRequest req;
  req.set_name(name);
  req.set_password(password);
  auto r = impl_->any_unary<pb::AuthUserChangePasswordResponse>(
      "UserChangePassword", false,
      [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserChangePasswordResponse* resp) {
        return c.auth->UserChangePassword(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return {};
}

base::Status Client::user_grant_role(const std::string& user, const std::string& role) {
  pb::AuthUserGrantRoleRequest req;
  req.set_user(user);
  req.set_role(role);
  auto r = impl_->any_unary<pb::AuthUserGrantRoleResponse>(
      "UserGrantRole", false, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserGrantRoleResponse* resp) {
        return c.auth->UserGrantRole(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), user);
  return {};
}

base::Result<std::vector<Permission>> Client::role_get(const std::string& role) {
  pb::AuthRoleGetRequest req;
  req.set_role(role);
  auto r = impl_->any_unary<pb::AuthRoleGetResponse>(
      "RoleGet", true, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthRoleGetResponse* resp) {
        return c.auth->RoleGet(ctx, req, resp);
      });
  if (!r) {
    auto e = std::move(r).error();
    e.object = "role \"" + role + "\"";
    return e;
  }
  std::vector<Permission> out;
  for (const auto& p : r->perm()) out.push_back({static_cast<Permission::Type>(p.permtype()), p.key(), p.range_end()});
  return out;
}

// ---- per member

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

std::vector<MemberResult<StatusInfo>> Client::status_all(const std::vector<std::string>& endpoints,
                                                         std::optional<Deadline> deadline) {
  // Log in first so that members do not race for the token.
  (void)impl_->ensure_token();
  return fan_out<StatusInfo>(endpoints, deadline.value_or(default_deadline()),
                             [this](const std::string& ep, Deadline d) { return status(ep, d); });
}

}  // namespace etcd
