// The etcd v3 client both programs use (gRPC). One channel per endpoint,
// created on first use and reused; one ClientContext with a deadline per call.
//
// Two kinds of calls (docs/rules.md#connect-modes):
// - cluster calls (membership, alarms, auth, KV) go to any endpoint of the
//   config: the first that works, skipping endpoints that cannot be reached
//   or that are learners (a failed endpoint is tried last next time);
// - per-member calls (Status, Defragment, Hash, HashKV, Snapshot, MoveLeader)
//   go to exactly the endpoint given, which need not be in the config.
//
// With a user configured, the client authenticates once, sends the token as
// the `token` metadata on every call, and authenticates again when etcd says
// the token is invalid (expired). Credentials are never sent over plaintext.
// No call throws; every call is safe to make from several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/sink.h"
#include "etcd/config.h"
#include "etcd/fanout.h"
#include "etcd/snapshot.h"
#include "etcd/types.h"

namespace etcd {

class Client {
 public:
  // Checks the config and loads TLS material; dials nothing yet.
  static base::Result<std::unique_ptr<Client>> create(Config config);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const Config& config() const;
  // A deadline `call_timeout` from now.
  Deadline default_deadline() const;

  // Cluster: membership.
  // linearizable: the answer reflects every committed change. etcd 3.4 has
  // no such option: when the member's Status (asked alongside) says 3.4, a
  // linearizable Range on the same member is the barrier and MemberList is
  // asked again (docs/member-list.md).
  base::Result<MemberList> member_list(bool linearizable = false);
  base::Result<MemberAddResult> member_add(const std::vector<std::string>& peer_urls, bool as_learner);
  base::Result<std::vector<Member>> member_remove(std::uint64_t id);
  base::Result<std::vector<Member>> member_update(std::uint64_t id, const std::vector<std::string>& peer_urls);
  base::Result<std::vector<Member>> member_promote(std::uint64_t id);

  // Cluster: alarms. Disarm answers the alarms it deactivated.
  base::Result<std::vector<Alarm>> alarm_list();
  base::Result<std::vector<Alarm>> alarm_disarm(const Alarm& alarm);
  // The same list, asked of one member under a deadline (health fans it out).
  base::Result<std::vector<Alarm>> alarm_list_at(const std::string& endpoint, std::optional<Deadline> deadline = {});
  // Lists, then deactivates each (the client-side convenience: docs/rules.md#call-semantics).
  base::Result<std::vector<Alarm>> alarm_disarm_all();

  // Cluster: KV.
  base::Result<RangeResult> range(const std::string& key, const RangeOptions& options = {});
  // The same read on exactly one member under a deadline: a linearizable
  // Range there proves that member reaches the leader (health).
  base::Result<RangeResult> range_at(const std::string& endpoint, const std::string& key,
                                    const RangeOptions& options = {}, std::optional<Deadline> deadline = {});
  base::Result<Header> put(const std::string& key, const std::string& value);
  base::Result<std::int64_t> delete_range(const std::string& key, const std::string& range_end = {});
  base::Result<Header> compact(std::int64_t revision, bool physical = false);

  // Cluster: auth. AuthStatus needs etcd 3.5+ (3.4 answers reason "Unimplemented").
  base::Result<bool> auth_status();
  base::Status auth_enable();
  base::Status auth_disable();
  // Checks credentials and, on success, makes the client use them from now on.
  base::Status authenticate(const std::string& user, const std::string& password);
  // nullopt: a user without password (authenticates by certificate CN only).
  base::Status user_add(const std::string& name, const std::optional<std::string>& password);
  base::Result<std::vector<std::string>> user_get(const std::string& name);  // its roles
  base::Status user_delete(const std::string& name);
  base::Status user_change_password(const std::string& name, const std::string& password);
  base::Status user_grant_role(const std::string& user, const std::string& role);
  base::Result<std::vector<Permission>> role_get(const std::string& role);

  // Per member: `endpoint` is a client URL such as "https://10.0.0.4:2379".
  // Without a deadline: call_timeout from now.
  base::Result<StatusInfo> status(const std::string& endpoint, std::optional<Deadline> deadline = {});
  base::Result<Header> defragment(const std::string& endpoint, std::optional<Deadline> deadline = {});
  base::Result<HashInfo> hash(const std::string& endpoint, std::optional<Deadline> deadline = {});
  base::Result<HashKVInfo> hash_kv(const std::string& endpoint, std::int64_t revision,
                                  std::optional<Deadline> deadline = {});
  // Must go to the current leader's endpoint (docs/rules.md#call-semantics).
  base::Result<Header> move_leader(const std::string& leader_endpoint, std::uint64_t target_id,
                                  std::optional<Deadline> deadline = {});
  // Streams the member's db to the sink, verified, then commits the sink.
  // Without a deadline the stream may take as long as it needs; a stall
  // timeout (0 = none) ends it when no message arrived for that long (a
  // paused member), as ErrorKind::Timeout.
  base::Result<SnapshotInfo> snapshot(const std::string& endpoint, base::Sink& sink,
                                     SnapshotProgress progress = {}, std::optional<Deadline> deadline = {},
                                     std::chrono::milliseconds stall_timeout = {});

  // Status of every endpoint at once under one deadline (default: call_timeout).
  std::vector<MemberResult<StatusInfo>> status_all(const std::vector<std::string>& endpoints,
                                                   std::optional<Deadline> deadline = {});

  struct Impl;

 private:
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace etcd
