#include "admin/member_surgery.h"

namespace admin {

namespace {

// Restores the operator when the flow leaves with it stopped, whichever way.
class RestoreOnExit {
 public:
  RestoreOnExit(const SurgerySteps& steps, const SurgeryHooks& hooks) : steps_(steps), hooks_(hooks) {}
  RestoreOnExit(const RestoreOnExit&) = delete;
  RestoreOnExit& operator=(const RestoreOnExit&) = delete;
  ~RestoreOnExit() {
    if (armed_) restore(steps_, hooks_);
  }
  void arm() { armed_ = true; }

  static void restore(const SurgerySteps& steps, const SurgeryHooks& hooks) {
    if (auto st = steps.restore_operator(); !st && hooks.warning) {
      hooks.warning("restoring the operator: " + st.error().one_line());
    }
  }

 private:
  const SurgerySteps& steps_;
  const SurgeryHooks& hooks_;
  bool armed_ = false;
};

}  // namespace

SurgerySteps real_steps(MemberEnv& env) {
  SurgerySteps s;
  s.restore_operator = [&env] { return restore_operator(env); };
  s.stop_operator = [&env](std::chrono::milliseconds timeout, const std::function<void(const std::string&)>& note) {
    return stop_operator(env, timeout, note);
  };
  s.read_state = [&env](bool nodes) { return read_state(env, nodes); };
  s.execute = [&env](const MemberPlan& plan, const MemberRequest& request, const ExecOptions& options) {
    return execute(env, plan, request, options);
  };
  return s;
}

base::Result<SurgeryResult> member_surgery(const SurgerySteps& steps, MemberRequest request, bool dry_run,
                                          const std::string& cluster, const SurgeryHooks& hooks) {
  // A run that stopped the operator and was killed left the replicas in an
  // annotation: put them back, unless this run stops it again anyway.
  if (!request.stop_operator) RestoreOnExit::restore(steps, hooks);

  auto state = steps.read_state(request.force_delete_pod);
  if (!state) return std::move(state).error();
  SurgeryResult out;
  out.plan = plan_member(*state, request);
  if (!out.plan.not_found.empty()) {
    return base::make_error(base::ErrorKind::NotFound, out.plan.not_found, "etcdcluster \"" + cluster + "\"",
                            "see `kubectl etcd member list`");
  }
  if (dry_run || out.plan.refused()) return out;
  if (hooks.warning) {
    for (const auto& w : out.plan.warnings) hooks.warning(w);
  }
  if (hooks.confirm && !hooks.confirm(out.plan)) {
    out.declined = true;
    return out;
  }

  RestoreOnExit restore(steps, hooks);
  if (out.plan.stop_operator) {
    restore.arm();  // a failed or partial stop is undone too
    if (auto st = steps.stop_operator(hooks.exec.timeout, hooks.exec.progress); !st) return std::move(st).error();
    if (hooks.milestone) hooks.milestone("operator stopped");
    // The plan was made with the operator running; make it again.
    state = steps.read_state(request.force_delete_pod);
    if (!state) return std::move(state).error();
    request.skip_operator_check = true;
    out.plan = plan_member(*state, request);
    out.plan.stop_operator = true;
    if (out.plan.refused() || !out.plan.not_found.empty()) {
      return base::make_error(base::ErrorKind::Refused,
                              "refused once the operator stopped: " +
                                  (out.plan.refused() ? out.plan.refusals.front() : out.plan.not_found));
    }
  }
  auto report = steps.execute(out.plan, request, hooks.exec);
  if (!report) return std::move(report).error();
  out.report = std::move(*report);
  return out;
}

}  // namespace admin
