// One member change from start to end, as one call: put back an operator a
// killed run left stopped, read and plan, ask, stop the operator when the
// plan says so and plan again with it stopped, execute, and restore the
// operator on every path out (docs/break-glass-design.md#operator-active).
// The program maps flags to the request and renders what comes back.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "admin/member_exec.h"
#include "admin/member_plan.h"
#include "base/result.h"

namespace admin {

struct SurgeryHooks {
  // Asked once with a plan that can run; false: nothing is done.
  std::function<bool(const MemberPlan& plan)> confirm;
  std::function<void(const std::string&)> warning;    // plan warnings, a failed restore
  std::function<void(const std::string&)> milestone;  // "operator stopped"
  ExecOptions exec;                                   // waits' budget, progress, step hooks
};

struct SurgeryResult {
  MemberPlan plan;                    // the plan that ran (made again once the operator stopped)
  std::optional<ExecReport> report;   // empty: a dry run, a refused plan, or not confirmed
  bool declined = false;              // confirm said no
};

// The operations the flow is made of. The defaults are the real ones
// (member_exec.h); the flow's unit test records calls instead.
struct SurgerySteps {
  std::function<base::Status()> restore_operator;
  std::function<base::Status(std::chrono::milliseconds, const std::function<void(const std::string&)>&)> stop_operator;
  std::function<base::Result<LiveState>(bool nodes)> read_state;
  std::function<base::Result<ExecReport>(const MemberPlan&, const MemberRequest&, const ExecOptions&)> execute;
};
SurgerySteps real_steps(MemberEnv& env);

// A plan whose target does not exist is a NotFound error naming `cluster`;
// a refused plan (before or after the operator stopped) comes back without a
// report (before) or as a Refused error (after: the operator is restored).
// dry_run: the plan only.
base::Result<SurgeryResult> member_surgery(const SurgerySteps& steps, MemberRequest request, bool dry_run,
                                          const std::string& cluster, const SurgeryHooks& hooks);

}  // namespace admin
