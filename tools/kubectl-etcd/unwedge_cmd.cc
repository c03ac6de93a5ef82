// member unwedge (docs/break-glass-design.md#unwedge): find what stops the operator, plan the
// fixes, confirm, run.
#include <iostream>

#include "admin/member_exec.h"
#include "admin/unwedge_exec.h"
#include "admin/unwedge_plan.h"
#include "base/duration.h"
#include "cli/progress.h"
#include "commands.h"
#include "confirm.h"
#include "flags.h"

namespace kubectl_etcd {

namespace {

struct UnwedgeOpts {
  CommonFlags common;
  admin::UnwedgeRequest request;
  bool yes = false, dry_run = false;
  std::string timeout = "5m";
};

// 0: nothing left for a person; 3: only symptoms this command does not fix
// (nothing was changed); 5: fixed some, others need a person.
int left_over(const admin::UnwedgePlan& plan, bool ran) {
  if (plan.advice.empty()) return 0;
  return ran ? 5 : 3;
}

int run_unwedge(cli::Program& program, UnwedgeOpts& o) {
  auto timeout = base::parse_duration(o.timeout);
  if (!timeout) return fail(program, timeout.error());
  auto ctx = open(o.common, program);
  if (!ctx) return fail(program, ctx.error());
  if (!ctx->session.target.from_cluster() || !ctx->kube) {
    return fail(program, base::make_error(base::ErrorKind::Usage, "member unwedge needs a cluster (-c or -p)"));
  }
  admin::MemberEnv env;
  env.kube = ctx->kube.get();
  env.session = &ctx->session;
  env.operator_deployment = o.common.operator_deployment;
  auto state = admin::read_state(env, true);
  if (!state) return fail(program, state.error());
  auto plan = admin::plan_unwedge(*state, o.request, std::chrono::system_clock::now());
  output::View view;
  view.text = [&plan](const nlohmann::ordered_json&) { return admin::unwedge_text(plan); };
  if (o.dry_run) {
    // The run's exit code and error line wherever the run would change
    // nothing: refused, or only symptoms this command does not fix
    // (docs/rules.md#dry-run-checks-what-the-run-checks).
    int rc = plan.refused() ? 3 : plan.fixes.empty() ? left_over(plan, false) : 0;
    rc = print(program, output::render(admin::unwedge_document(plan), view, ctx->format), rc);
    if (rc != 0) {
      program.diag->error(plan.refused() ? "member unwedge refused: " + plan.refusals.front()
                                         : "nothing here fixes what is left; see the lines above");
    }
    return rc;
  }
  if (plan.refused()) {
    std::cerr << admin::unwedge_text(plan);
    return fail(program, base::make_error(base::ErrorKind::Refused, "member unwedge refused: " + plan.refusals.front()));
  }
  if (plan.fixes.empty()) {
    int rc = print(program, output::render(admin::unwedge_document(plan), view, ctx->format), left_over(plan, false));
    if (rc != 0) program.diag->error("nothing here fixes what is left; see the lines above");
    return rc;
  }
  if (auto rc = confirm_plan(program, o.yes, admin::unwedge_text(plan))) return *rc;

  cli::Progress progress(std::cerr, cli::Progress::stderr_is_terminal(), program.diag->quiet());
  admin::ExecOptions eo;
  eo.timeout = *timeout;
  eo.progress = [&progress](const std::string& s) { progress.update(s); };
  eo.after_step = [&progress](const std::string& fix) { progress.line("fix " + fix + " done"); };
  auto done = admin::execute_unwedge(env, plan, eo);
  progress.finish();
  if (!done) return fail(program, done.error());
  output::View report;
  report.text = [](const nlohmann::ordered_json& d) {
    std::string out;
    for (const auto& f : d["fixes"]) {
      out += f["fix"].get<std::string>() + " [" + f["symptom"].get<std::string>() + "]";
      if (!f["member"].get<std::string>().empty()) out += " " + f["member"].get<std::string>();
      if (!f["id"].get<std::string>().empty()) out += " " + f["id"].get<std::string>();
      out += ": " + f.value("outcome", std::string("?"));
      if (!f.value("detail", std::string()).empty()) out += " (" + f["detail"].get<std::string>() + ")";
      out += "\n";
    }
    for (const auto& a : d["advice"]) out += "not fixed here [" + a["symptom"].get<std::string>() + "]: " + a["action"].get<std::string>() + "\n";
    return out;
  };
  return print(program, output::render(admin::unwedge_exec_document(plan, *done), report, ctx->format),
               left_over(plan, true));
}

}  // namespace

void setup_member_unwedge(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<UnwedgeOpts>();
  add_common_flags(sub, o->common);
  sub.add_flag("-y,--yes", o->yes, "Do not ask for confirmation (required without a terminal)");
  sub.add_flag("--dry-run", o->dry_run,
               "Print the symptoms and the fixes and change nothing; exits 3 where the run would change nothing "
               "(refused, or only symptoms it does not fix)");
  sub.add_flag("--expire-deadline", o->request.expire_deadline,
               "Escalation: move a status.progressDeadline still ahead into the past, so the operator ends a "
               "wedged reconcile at its next pass");
  sub.add_option("--timeout", o->timeout, "Budget of the waits (etcd refusing changes right after another)")
      ->default_str("5m");
  sub.footer("Allowed while the operator runs. Finds and fixes:\n"
             "  a Terminating EtcdMember etcd no longer lists: clear status.memberID (and, with the operator\n"
             "    not active, drop its finalizer once a linearizable MemberList shows it absent);\n"
             "  an orphan learner (no EtcdMember, or one not pending without a Pod): MemberRemove it;\n"
             "  with --expire-deadline, a progressDeadline still ahead: set it in the past.\n"
             "Reports without fixing: Available=False/DeadlineExceeded with spec equal to observed (edit the\n"
             "spec), a member not Ready on a NotReady or gone Node (`member replace`), and a voter that does\n"
             "not answer on a Ready Node while a spec change or a gap waits for it (`member roll` or\n"
             "`member replace`: the operator adds no member until every member is Ready).\n"
             "Every fix reads the state again first, so a re-run is safe. Exit 0 nothing left, 3 only\n"
             "symptoms this command does not fix (or refused), 5 fixed some and others are left.");
  sub.callback([&action, &program, o] { action = [&program, o] { return run_unwedge(program, *o); }; });
}

}  // namespace kubectl_etcd
