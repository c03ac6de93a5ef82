// Membership surgery as a value (docs/break-glass-design.md): `member add|promote|remove|
// replace` first compute a plan from the live state (the EtcdCluster, its
// EtcdMembers and Pods, a linearizable MemberList, which members answer),
// then member_exec runs it step by step. Pure: no API, no etcd.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_step.h"
#include "admin/operator_state.h"
#include "etcd/types.h"

namespace admin {

// What one decision is made from; read again before every step.
struct LiveState {
  nlohmann::json cluster;                            // the EtcdCluster
  nlohmann::json members = nlohmann::json::array();  // its EtcdMembers (cluster label)
  nlohmann::json pods = nlohmann::json::array();     // its Pods
  nlohmann::json pdb;                                // PodDisruptionBudget <c>, null when absent
  bool headless_service = true;                      // Service <c> exists
  std::vector<std::string> missing_secrets;          // TLS Secrets a new Pod mounts that do not exist
  // Those whose certificate does not cover the name of a member the operator
  // creates later: "Secret <name> (tls.crt names: ...)".
  std::vector<std::string> uncovered_certs;
  etcd::MemberList etcd;                             // linearizable
  std::string etcd_error;                            // why there is no MemberList (no quorum)
  std::set<std::uint64_t> healthy;                   // members that answered Status
  std::map<std::uint64_t, std::string> dial_errors;  // members whose Status failed: the error (a TLS name, a refusal)
  std::uint64_t leader = 0;
  std::optional<OperatorState> operator_state;       // unset: not judged
  // Ready condition of the Nodes the Pods are bound to (false: NotReady or
  // the Node is gone); read only for --force-delete-pod.
  std::map<std::string, bool> node_ready;

  // The Pod named `name`, or nullptr.
  const nlohmann::json* pod(const std::string& name) const;
};

enum class MemberOp { Add, Promote, Remove, Replace, Roll };
const char* op_name(MemberOp op);

struct MemberRequest {
  MemberOp op = MemberOp::Add;
  std::string target;  // name or ID (promote, remove, replace)
  bool break_glass = false;
  bool stop_operator = false;
  bool skip_operator_check = false;
  bool force = false;       // add: spec != observed or uncovered certificates; promote: an unhealthy voter
  bool scale_down = false;  // remove: a targeted shrink (break-glass only)
  bool no_promote = false;  // add: leave the learner for the operator
  bool move_leader = true;  // remove: hand leadership away from the target first
  bool force_delete_pod = false;  // remove: delete its Pod with grace 0 when its Node is NotReady or gone
  // Operator-mediated add, remove, replace: wait until the operator finished
  // (the steps wait-added, wait-removed, wait-filled).
  bool wait = false;
};

enum class Mode { Operator, BreakGlass };
// New: add creates it; Member: an EtcdMember matched in etcd; Orphan: an etcd
// member without EtcdMember; Ghost: an EtcdMember etcd does not know; Gone:
// neither exists any more (a re-run after the last object went).
enum class TargetKind { New, Member, Orphan, Ghost, Gone };

struct PlanStep {
  MemberStep id;
  std::string text;  // what it does, for the printed plan
};

struct MemberPlan {
  MemberOp op = MemberOp::Add;
  Mode mode = Mode::Operator;
  TargetKind kind = TargetKind::New;
  std::string member;       // EtcdMember name (empty: not created yet, or orphan)
  std::string added;        // add part: the EtcdMember being added (empty: created by the plan)
  std::uint64_t id = 0;     // etcd member ID when known
  std::string peer_url;     // of the target, when known
  std::string pod_uid;      // roll: the Pod being replaced (a re-run: the one the EtcdMember is marked with)
  bool voter = false;
  bool resume = false;      // an earlier run stopped mid-way; this one finishes it
  bool was_ready = false;   // remove: the EtcdMember had Ready=True
  bool stop_operator = false;
  long long replicas = 0;   // observed.replicas when planned
  long long want = 0;       // operator-mediated waits: the member count the operator settles at
  // remove: status.readyMembers when planned; the count step writes one
  // less, an absolute value (docs/step-engine.md#relative-effects)
  long long ready_members = 0;
  std::vector<std::string> before;  // operator-mediated waits: the EtcdMembers when planned
  std::vector<PlanStep> steps;
  std::vector<std::string> refusals;  // non-empty: refused (exit 3)
  std::string not_found;              // non-empty: the target does not exist (exit 6)
  std::vector<std::string> warnings;
  bool refused() const { return !refusals.empty(); }
  bool has(MemberStep step) const;
};

MemberPlan plan_member(const LiveState& s, const MemberRequest& r);

nlohmann::ordered_json plan_document(const MemberPlan& p);
std::string plan_text(const MemberPlan& p);

// --- pieces of the operator's contract (docs/rules.md#member-pod-and-pvc) --------------
std::size_t quorum(std::size_t voters);  // floor(n/2)+1
// minAvailable of the PDB: floor(max(voters, observed)/2)+1.
long long pdb_min_available(long long voters, long long observed);
// The member of `l` with `id` (when not 0), else the first with that name or
// peer URL (either when not empty); nullptr when none.
const etcd::Member* find_member(const etcd::MemberList& l, std::uint64_t id, const std::string& name,
                                const std::string& url);
// Members etcd lists as `id` (or by the EtcdMember's name or peer URL).
const etcd::Member* find_etcd(const LiveState& s, std::uint64_t id, const std::string& name, const std::string& url);
// Parses a member ID: hex (with or without leading zeros) or decimal.
std::optional<std::uint64_t> parse_member_id(const std::string& text);

}  // namespace admin
