// The insides of etcd::Client (etcd/client.h), shared by its units, one per
// etcd service as etcd's own client is split: client.cc (creation, the
// config, the calls on every member), client_cluster.cc, client_kv.cc,
// client_auth.cc and client_maintenance.cc. The gRPC channels, stubs,
// deadlines, endpoint fail-over and login live here. Private to lib/etcd.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "etcd/client.h"
#include "etcd/endpoint.h"
#include "etcd/errors.h"
#include "etcd/resend.h"
#include "etcd/tls.h"
#include "rpc.grpc.pb.h"

namespace etcd {

namespace pb = etcdserverpb;
using Clock = std::chrono::system_clock;

inline Header to_header(const pb::ResponseHeader& h) {
  return {h.cluster_id(), h.member_id(), h.revision(), h.raft_term()};
}

inline Member to_member(const pb::Member& m) {
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

// The object of an error about a member the call names by ID.
inline base::Error on_member(base::Error e, std::uint64_t id) {
  e.object = member_object({}, id);
  return e;
}

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
    // The client resends by its own rules (etcd/resend.h); gRPC's retry layer
    // also aborts the process on trailers without a status
    // (docs/server-faults.md#fixes-these-tests-brought).
    args.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);
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
  // worked, until one answers or fails in a way the policy does not resend.
  template <class T, class F>
  base::Result<T> any(const char* call, Resend policy, F&& fn) {
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
      // A write that fails on a connected channel may have reached etcd; one
      // on a channel that never connected did not, and may go on.
      if (policy == Resend::kUnproposed && !connected(**c)) {
        failures.push_back(not_sent(call, eps[i]));
        continue;
      }
      base::Result<T> r = fn(**c, eps[i], attempt_deadline());
      if (r) {
        std::lock_guard lock(mu);
        preferred = i;
        return r;
      }
      if (!resend(r.error(), policy)) {
        if (policy == Resend::kUnproposed) return maybe_applied(std::move(r).error());
        return r;
      }
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

  // Whether the channel connects within the dial timeout. A channel in
  // backoff after a failure counts as not connected at once, as a call on it
  // would fail at once.
  bool connected(Conn& c) const {
    const Deadline d = Clock::now() + cfg.dial_timeout;
    for (auto st = c.channel->GetState(true); st != GRPC_CHANNEL_READY; st = c.channel->GetState(true)) {
      if (st == GRPC_CHANNEL_TRANSIENT_FAILURE || st == GRPC_CHANNEL_SHUTDOWN) return false;
      if (!c.channel->WaitForStateChange(st, d)) return false;
    }
    return true;
  }

  static base::Error not_sent(const char* call, const std::string& endpoint) {
    auto e = base::make_error(base::ErrorKind::CannotConnect,
                              std::string("cannot reach etcd: ") + call + " not sent, no connection",
                              endpoint_object(endpoint),
                              "check that the member runs and the endpoint, CA and server name are right");
    e.reason = reason::kNotSent;
    return e;
  }

  // Unary cluster call: any endpoint, with the token.
  template <class Resp, class F>
  base::Result<Resp> any_unary(const char* call, Resend policy, F&& f) {
    if (auto t = ensure_token(); !t) return std::move(t).error();
    return any<Resp>(call, policy, [&](Conn& c, const std::string& ep, Deadline d) {
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
    auto r = any<pb::AuthenticateResponse>("Authenticate", Resend::kRead,
                                           [&](Conn& c, const std::string& ep, Deadline d) {
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

}  // namespace etcd
