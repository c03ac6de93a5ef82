// member add | promote | remove | replace (docs/break-glass-design.md): plan, confirm, run.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "admin/member_exec.h"
#include "admin/member_plan.h"
#include "admin/member_surgery.h"
#include "base/duration.h"
#include "cli/progress.h"
#include "cli/version.h"
#include "commands.h"
#include "confirm.h"
#include "etcd/member_id.h"
#include "flags.h"

namespace kubectl_etcd {

namespace {

struct MemberOpts {
  CommonFlags common;
  admin::MemberRequest request;
  bool yes = false, dry_run = false, wait = false, no_move_leader = false;
  std::string timeout = "5m";
};

void add_mutation_flags(CLI::App& sub, MemberOpts& o) {
  add_common_flags(sub, o.common);
  sub.add_flag("--break-glass", o.request.break_glass,
               "Do the surgery directly (EtcdMember, etcd, Pod, status) instead of through the operator");
  sub.add_flag("--stop-operator", o.request.stop_operator,
               "With --break-glass: scale the operator to 0 first and restore its replicas afterwards");
  sub.add_flag("--skip-operator-check", o.request.skip_operator_check,
               "With --break-glass: go on although the operator looks active (expert)");
  sub.add_flag("-y,--yes", o.yes, "Do not ask for confirmation (required without a terminal)");
  sub.add_flag("--dry-run", o.dry_run, "Print the plan and change nothing (exit 3 when it is refused)");
  sub.add_option("--timeout", o.timeout, "Budget of the waits (Ready, promotion, operator stop, --wait)")
      ->default_str("5m");
}

int run_member(cli::Program& program, MemberOpts& o) {
  auto timeout = base::parse_duration(o.timeout);
  if (!timeout) return fail(program, timeout.error());
  o.request.wait = o.wait;
  o.request.move_leader = !o.no_move_leader;
  if ((o.request.stop_operator || o.request.skip_operator_check) && !o.request.break_glass) {
    return fail(program, base::make_error(base::ErrorKind::Usage, "--stop-operator and --skip-operator-check go with --break-glass"));
  }
  auto ctx = open(o.common, program);
  if (!ctx) return fail(program, ctx.error());
  if (!ctx->session.target.from_cluster() || !ctx->kube) {
    return fail(program, base::make_error(base::ErrorKind::Usage, "member changes need a cluster (-c or -p)", {},
                                         "--endpoints has no EtcdMembers to keep consistent"));
  }
  admin::MemberEnv env;
  env.kube = ctx->kube.get();
  env.session = &ctx->session;
  env.operator_deployment = o.common.operator_deployment;
  env.rendered_by = std::string("kubectl-etcd/") + cli::kVersion;
  cli::Diag& diag = *program.diag;
  cli::Progress progress(std::cerr, cli::Progress::stderr_is_terminal(), diag.quiet());
  const std::string cluster = ctx->session.target.ns + "/" + ctx->session.target.cluster;

  admin::SurgeryHooks hooks;
  hooks.warning = [&diag](const std::string& w) { diag.warning(w); };
  hooks.milestone = [&progress](const std::string& m) { progress.line(m); };
  std::optional<int> declined_rc;
  hooks.confirm = [&](const admin::MemberPlan& plan) {
    declined_rc = confirm_plan(program, o.yes, admin::plan_text(plan));
    return !declined_rc;
  };
  hooks.exec.timeout = *timeout;
  hooks.exec.progress = [&progress](const std::string& s) { progress.update(s); };
  hooks.exec.note = [&progress](const std::string& s) { progress.line(s); };
  // The outcome the step returned, as the summary reports it.
  hooks.exec.step_done = [&progress](const admin::StepResult& r) {
    progress.line(std::string("step ") + admin::step_name(r.step) + ": " + r.outcome + (r.detail.empty() ? "" : " (" + r.detail + ")"));
  };
#ifdef ETCDOPCLI_TEST_SEAMS
  // Test seam for the crash tests, in test builds only (-Dtest_seams=true):
  // die right after the named step.
  const char* kill_after = std::getenv("KUBECTL_ETCD_TEST_KILL_AFTER");
  std::string kill_step = kill_after != nullptr ? kill_after : "";
  hooks.exec.after_step = [kill_step](const std::string& step) {
    if (!kill_step.empty() && step == kill_step) std::raise(SIGKILL);
  };
#endif

  auto result = admin::member_surgery(admin::real_steps(env), o.request, o.dry_run, cluster, hooks);
  progress.finish();
  if (!result) return fail(program, result.error());
  const admin::MemberPlan& plan = result->plan;
  auto refusal = [&plan] {
    return base::make_error(base::ErrorKind::Refused,
                            "member " + std::string(admin::op_name(plan.op)) + " refused: " + plan.refusals.front());
  };
  if (o.dry_run) {
    output::View view;
    view.text = [&plan](const nlohmann::ordered_json&) { return admin::plan_text(plan); };
    int rc = print(program, output::render(admin::plan_document(plan), view, ctx->format), plan.refused() ? 3 : 0);
    // The run's error line too (docs/rules.md#dry-run-checks-what-the-run-checks).
    if (plan.refused()) program.diag->error(refusal());
    return rc;
  }
  if (plan.refused()) {
    std::cerr << admin::plan_text(plan);
    return fail(program, refusal());
  }
  if (result->declined) return declined_rc.value_or(0);
  output::View done;
  done.text = [](const nlohmann::ordered_json& d) {
    std::string out = "member " + d["operation"].get<std::string>() + " " + d["member"].get<std::string>();
    if (!d["id"].get<std::string>().empty()) out += " (" + d["id"].get<std::string>() + ")";
    out += ": done\n";
    for (const auto& s : d["steps"]) {
      out += "  " + s["step"].get<std::string>() + ": " + s["outcome"].get<std::string>();
      if (!s["detail"].get<std::string>().empty()) out += " (" + s["detail"].get<std::string>() + ")";
      out += "\n";
    }
    return out;
  };
  return print(program, output::render(admin::exec_document(plan, *result->report), done, ctx->format), 0);
}

}  // namespace

void setup_member_add(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Add;
  add_mutation_flags(sub, *o);
  sub.add_flag("--wait", o->wait,
               "Operator-mediated: wait (up to --timeout) until the operator added the member, promoted it and "
               "reports every member a Ready voter (break-glass always waits)");
  sub.add_flag("--no-promote", o->request.no_promote, "Break-glass: leave the learner for the operator to promote");
  sub.add_flag("--force", o->request.force,
               "Add although spec.replicas differs from status.observed.replicas, fewer EtcdMembers run than "
               "observed (the operator still converging), or the TLS certificates do not cover the name of a new "
               "member");
  sub.footer("Always adds a learner. With the operator active: +1 on spec.replicas; with --wait, progress on\n"
             "stderr until the operator's new member is a Ready voter. With --break-glass: the EtcdMember,\n"
             "MemberAddAsLearner, its PVC and Pod, then the promotion once it is in sync; a re-run after a\n"
             "stop finishes the add in progress. Exit 3 refused, 4 timed out (break-glass: a re-run resumes;\n"
             "operator-mediated: the operator goes on by itself, and a re-run would add one member more).");
  sub.callback([&action, &program, o] { action = [&program, o] { return run_member(program, *o); }; });
}

void setup_member_promote(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Promote;
  add_mutation_flags(sub, *o);
  sub.add_option("member", o->request.target, "EtcdMember name or member ID of the learner")->required();
  sub.add_flag("--force", o->request.force, "Promote although a voter does not answer (raises the quorum size)");
  sub.footer("MemberPromote, retried with backoff while etcd answers that the learner is not in sync, up to\n"
             "--timeout. With --break-glass also status.isVoter, the Pod role label and the PDB.");
  sub.callback([&action, &program, o] { action = [&program, o] { return run_member(program, *o); }; });
}

// The flags of `member remove` and of its Go aliases.
void add_remove_flags(CLI::App& sub, MemberOpts& o) {
  add_mutation_flags(sub, o);
  sub.add_flag("--scale-down", o.request.scale_down, "Break-glass: also lower spec.replicas (a targeted shrink)");
  sub.add_flag("--no-move-leader", o.no_move_leader, "Refuse a target that leads instead of moving leadership away from it");
  sub.add_flag("--force-delete-pod", o.request.force_delete_pod,
               "Once etcd no longer lists the member, delete its Pod with grace 0 if its Node is NotReady or gone");
  sub.add_flag("--wait", o.wait,
               "Operator-mediated: wait (up to --timeout) until etcd no longer lists the member and the operator "
               "filled the gap with a Ready voter (break-glass steps wait anyway)");
}

const char* const kRemoveFooter =
    "Targets: a member with an EtcdMember, an etcd member without one (stray voter, orphan learner),\n"
    "an EtcdMember etcd does not know (ghost). Refused when the voters left would lose quorum, for\n"
    "the last member, and while another change is in flight. A re-run finishes a stopped removal;\n"
    "with --force-delete-pod also one whose Pod is stuck Terminating on a lost Node. Leadership is\n"
    "moved away from a target that leads first (step move-leader). With the operator active the\n"
    "EtcdMember is deleted and the operator's finalizer removes the member and fills the gap; the\n"
    "move-leader step comes right before the delete for any voter and acts if the target leads then\n"
    "(the operator removes a leader without handing over). --wait shows that on stderr and exits 4\n"
    "when --timeout passes first.";

void setup_member_remove(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Remove;
  add_remove_flags(sub, *o);
  sub.add_option("member", o->request.target, "EtcdMember name, etcd member name or member ID")->required();
  sub.footer(kRemoveFooter);
  sub.callback([&action, &program, o] { action = [&program, o] { return run_member(program, *o); }; });
}

void setup_member_roll(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Roll;
  add_common_flags(sub, o->common);
  sub.add_flag("-y,--yes", o->yes, "Do not ask for confirmation (required without a terminal)");
  sub.add_flag("--dry-run", o->dry_run, "Print the plan and change nothing (exit 3 when it is refused)");
  sub.add_option("--timeout", o->timeout, "Budget of the waits (the new Pod Ready, the member answering)")
      ->default_str("5m");
  sub.add_option("member", o->request.target, "EtcdMember name or member ID")->required();
  sub.footer("Deletes the member's Pod, after moving leadership away if it leads then (step move-leader);\n"
             "the operator recreates it from its own template with the same PVC, so the data and the member\n"
             "ID come back. Waits until the new Pod is Ready and the member answers.\n"
             "For Pods `check` reports as HAND_RENDERED_POD, and for restarts such as a CA rotation.\n"
             "Refused (exit 3) for Memory members (a new Pod starts empty), when the operator is not active,\n"
             "and when the voters left during the restart would lose quorum. Exit 4: timed out waiting.\n"
             "The EtcdMember is annotated with the UID of the Pod being replaced until the member is back: a\n"
             "re-run after a stop deletes only that Pod, never the operator's new one.");
  sub.callback([&action, &program, o] { action = [&program, o] { return run_member(program, *o); }; });
}

void setup_remove_member(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Remove;
  add_remove_flags(sub, *o);
  auto id = std::make_shared<std::string>();
  sub.add_option("id", *id, "Member ID in hex, as the Go plugin read it")->required();
  sub.footer(std::string("Go plugin alias of `member remove <id>`: the argument is always a hex member ID.\n") +
             kRemoveFooter);
  sub.callback([&action, &program, o, id] {
    action = [&program, o, id] {
      auto parsed = etcd::parse_hex_member_id(*id);
      if (!parsed) return fail(program, parsed.error());
      o->request.target = etcd::format_member_id(*parsed);
      return run_member(program, *o);
    };
  });
}

void setup_leave(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Remove;
  add_remove_flags(sub, *o);
  sub.footer(std::string("Go plugin alias of `member remove <pod>` for the member of -p. Exit 6 when that pod is\n"
                         "not a member of the cluster.\n") +
             kRemoveFooter);
  sub.callback([&action, &program, o] {
    action = [&program, o] {
      if (o->common.pod.empty()) {
        return fail(program, base::make_error(base::ErrorKind::Usage, "you must specify the pod name (-p)"));
      }
      o->request.target = o->common.pod;
      return run_member(program, *o);
    };
  });
}

void setup_member_replace(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<MemberOpts>();
  o->request.op = admin::MemberOp::Replace;
  add_mutation_flags(sub, *o);
  sub.add_option("member", o->request.target, "EtcdMember name of the member to replace")->required();
  sub.add_flag("--wait", o->wait,
               "Operator-mediated: wait (up to --timeout) until the member is gone and the operator's new member "
               "is a Ready voter");
  sub.footer("Remove first, then add a learner in the gap and promote it (removing first keeps fault\n"
             "tolerance). With the operator active: move leadership away if the member leads (step\n"
             "move-leader), then delete the EtcdMember; the operator fills the gap.");
  sub.callback([&action, &program, o] { action = [&program, o] { return run_member(program, *o); }; });
}

}  // namespace kubectl_etcd
