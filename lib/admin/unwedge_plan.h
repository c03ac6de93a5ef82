// `member unwedge` (docs/break-glass-design.md#unwedge): the states that stop the operator for good,
// found from the live state and planned as fixes. Allowed while the operator
// runs: each fix is one the operator's own logic then completes. Pure: the
// state comes from member_exec's read_state.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_plan.h"

namespace admin {

struct UnwedgeRequest {
  // The documented escalation: a progressDeadline still ahead is moved into
  // the past, so the operator ends the wedged reconcile at its next pass.
  bool expire_deadline = false;
};

// The fixes, typed: the step engine runs a plan's fixes as its steps.
enum class FixId { ClearId, Release, RemoveLearner, ExpireDeadline };
// clear-id, release, remove-learner, expire-deadline: the plan's, the
// summary's and the JSON document's name.
const char* fix_name(FixId id);

// One write, with the symptom it ends.
struct UnwedgeFix {
  FixId id = FixId::ClearId;
  std::string symptom;  // terminating-ghost, orphan-learner, deadline-exceeded
  std::string member;   // EtcdMember name, when one is involved
  std::uint64_t etcd_id = 0;
  std::string text;
  std::string peer_url;  // the member's (clear-id, release): what the absence check looks for
};

// A symptom this command does not write a fix for, and what does.
struct UnwedgeAdvice {
  std::string symptom;  // deadline-exceeded, dead-member
  std::string member;
  std::string text;
};

struct UnwedgePlan {
  std::vector<UnwedgeFix> fixes;
  std::vector<UnwedgeAdvice> advice;
  std::vector<std::string> refusals;
  bool operator_active = false;
  bool refused() const { return !refusals.empty(); }
};

UnwedgePlan plan_unwedge(const LiveState& s, const UnwedgeRequest& r, std::chrono::system_clock::time_point now);

nlohmann::ordered_json unwedge_document(const UnwedgePlan& p);
std::string unwedge_text(const UnwedgePlan& p);

// spec equals status.observed on every field the operator latches
// (docs/operator-contract.md); spec.replicas defaults to 3.
bool spec_matches_observed(const nlohmann::json& cluster);

}  // namespace admin
