// The consistency checker (the invariants I1-I5 of
// docs/break-glass-design.md and their finding codes; one piece): compares etcd's membership with the EtcdMembers
// and Pods of one cluster. Pure: the caller gathers the objects and the
// MemberList, so `kubectl-etcd check` and `etcd-migrate verify` share it.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/operator_state.h"
#include "etcd/types.h"

namespace admin {

namespace finding {
inline constexpr const char* kStrayVoter = "STRAY_VOTER";
inline constexpr const char* kOrphanLearner = "ORPHAN_LEARNER";
inline constexpr const char* kGhostMember = "GHOST_MEMBER";
inline constexpr const char* kPendingMember = "PENDING_MEMBER";
inline constexpr const char* kTerminatingMember = "TERMINATING_MEMBER";
inline constexpr const char* kIsVoterMismatch = "ISVOTER_MISMATCH";
inline constexpr const char* kRoleLabelMismatch = "ROLE_LABEL_MISMATCH";
inline constexpr const char* kMemberIdMismatch = "MEMBERID_MISMATCH";
inline constexpr const char* kMultipleLearners = "MULTIPLE_LEARNERS";
inline constexpr const char* kDormantMember = "DORMANT_MEMBER";
inline constexpr const char* kReplicasMismatch = "REPLICAS_MISMATCH";
inline constexpr const char* kHandRenderedPod = "HAND_RENDERED_POD";
inline constexpr const char* kDeadlineExceeded = "DEADLINE_EXCEEDED";
inline constexpr const char* kOperatorInactive = "OPERATOR_INACTIVE";
inline constexpr const char* kUnreachableMember = "UNREACHABLE_MEMBER";
inline constexpr const char* kRestartingMember = "RESTARTING_MEMBER";
}  // namespace finding

// docs/break-glass-design.md#transient-findings: transient findings are states the operator completes by
// itself (a change in flight); errors need someone.
enum class Severity { Error, Transient };
const char* severity_name(Severity s);

struct Finding {
  std::string code;
  Severity severity = Severity::Error;
  std::string member;     // EtcdMember / etcd member name, empty for cluster-wide findings
  std::uint64_t id = 0;   // etcd member ID when one is involved
  std::string message;
};

struct ConsistencyInput {
  nlohmann::json cluster;  // the EtcdCluster
  nlohmann::json members = nlohmann::json::array();  // its EtcdMembers
  nlohmann::json pods = nlohmann::json::array();     // its Pods
  etcd::MemberList etcd;   // a (linearizable) MemberList
  std::optional<OperatorState> operator_state;  // unset: not judged
  // EtcdMember name -> why its Status failed (the dial error: a refused
  // connection, a TLS name the certificate lacks), for the members probed;
  // empty when none was.
  std::map<std::string, std::string> unreachable;
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

std::vector<Finding> check_consistency(const ConsistencyInput& in);

// The etcd member an EtcdMember stands for: by name, or by its peer URL
// (docs/rules.md#member-endpoints; a member added but not started has no name yet).
const etcd::Member* match_member(const nlohmann::json& cluster, const nlohmann::json& member,
                                 const std::vector<etcd::Member>& etcd_members);

nlohmann::ordered_json finding_json(const Finding& f);

}  // namespace admin
