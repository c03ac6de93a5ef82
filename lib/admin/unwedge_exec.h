// Runs an unwedge plan (docs/break-glass-design.md#unwedge) on the step engine
// (docs/step-engine.md), one fix a step. Each fix reads the live state again
// and decides: already done (skipped), do it, or cannot (an error), so a run
// stopped anywhere is finished by running the command again.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_exec.h"
#include "admin/unwedge_plan.h"
#include "base/result.h"

namespace admin {

struct UnwedgeOutcome {
  std::string fix;
  std::string member;
  std::string outcome;  // done, skipped
  std::string detail;
};

base::Result<std::vector<UnwedgeOutcome>> execute_unwedge(MemberEnv& env, const UnwedgePlan& plan,
                                                         const ExecOptions& options);

nlohmann::ordered_json unwedge_exec_document(const UnwedgePlan& plan, const std::vector<UnwedgeOutcome>& done);

}  // namespace admin
