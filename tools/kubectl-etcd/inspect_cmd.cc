// health, check, hashkv, status, member list (and the Go alias `members`).
#include "admin/check.h"
#include "admin/hashkv.h"
#include "admin/health.h"
#include "admin/status.h"
#include "commands.h"
#include "flags.h"

namespace kubectl_etcd {

void setup_health(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<CommonFlags>();
  add_common_flags(sub, *f);
  sub.footer("Per member: Status, a linearizable read, leader agreement, alarms; plus `check` for a cluster.\n"
             "Exit 0 healthy, 1 a member unhealthy or unreachable or a finding, 2 no member answered.\n"
             "-o wide adds ENDPOINT.");
  sub.callback([&action, &program, f] {
    action = [&program, f] {
      auto ctx = open(*f, program);
      if (!ctx) return fail(program, ctx.error());
      auto report = admin::check_health(ctx->session);
      if (!report.consistency_error.empty()) program.diag->warning("consistency check: " + report.consistency_error);
      return print(program,
                   admin::render_report(admin::health_document(report), admin::health_view(), ctx->format),
                   admin::health_exit_code(report));
    };
  });
}

void setup_check(CLI::App& sub, cli::Action& action, cli::Program& program) {
  struct Opts {
    CommonFlags common;
    bool consistency = false;
  };
  auto o = options<Opts>();
  add_common_flags(sub, o->common);
  sub.add_flag("--consistency", o->consistency,
               "Also compare every member's HashKV at one shared revision (as `hashkv`)");
  sub.footer("Consistency findings between etcd and the EtcdMembers and Pods, and each voter that cannot be\n"
             "dialled (UNREACHABLE_MEMBER, with the error and, when a certificate explains it, that certificate's\n"
             "problem as `certs` reports it), and each member whose etcd container restarts without becoming\n"
             "Ready (RESTARTING_MEMBER, with the restart count and last exit); exit 1 if any.\n"
             "--consistency: also the members' data (HashKV); exit 8 when two members disagree.");
  sub.callback([&action, &program, o] {
    action = [&program, o] {
      auto ctx = open(o->common, program);
      if (!ctx) return fail(program, ctx.error());
      if (!ctx->session.target.from_cluster()) {
        return fail(program, base::make_error(base::ErrorKind::Usage, "check needs a cluster (-c or -p)", {},
                                             "--endpoints has no EtcdMembers to compare with; `hashkv` works with it"));
      }
      auto findings = admin::check_cluster(ctx->session.target, *ctx->session.etcd, ctx->kube.get());
      if (!findings) return fail(program, findings.error());
      auto doc = admin::check_document(*findings);
      int rc = findings->empty() ? 0 : 1;
      std::string text = admin::render_report(doc, admin::check_view(), ctx->format);
      if (o->consistency) {
        auto data = admin::compare_hash_kv(ctx->session.target, *ctx->session.etcd);
        if (!data) return fail(program, data.error());
        doc["hashkv"] = admin::hashkv_document(*data);
        const int data_rc = admin::hashkv_exit_code(*data);
        if (data_rc == base::exit_code(base::ErrorKind::Inconsistent)) rc = data_rc;
        else if (data_rc != 0) rc = 1;
        const bool table = ctx->format == output::Format::Table || ctx->format == output::Format::Wide;
        text = table ? text + "\nHASHKV\n" + admin::render_hashkv(doc["hashkv"], ctx->format)
                     : admin::render_report(doc, admin::check_view(), ctx->format);
      }
      return print(program, text, rc);
    };
  });
}

void setup_hashkv(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<CommonFlags>();
  add_common_flags(sub, *f);
  sub.footer("Every voting member's HashKV at one shared revision (the lowest current revision above the\n"
             "compact revision; asked again once when a compaction passes it). Learners are skipped.\n"
             "Exit 0 all agree, 8 two members disagree (named), 5 some member gave no hash, 1 none gave one,\n"
             "2 no voting member answered.\n"
             "-o wide adds ID, ENDPOINT, REVISION.");
  sub.callback([&action, &program, f] {
    action = [&program, f] {
      auto ctx = open(*f, program);
      if (!ctx) return fail(program, ctx.error());
      auto report = admin::compare_hash_kv(ctx->session.target, *ctx->session.etcd);
      if (!report) return fail(program, report.error());
      return print(program, admin::render_hashkv(admin::hashkv_document(*report), ctx->format),
                   admin::hashkv_exit_code(*report));
    };
  });
}

void setup_status(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<CommonFlags>();
  add_common_flags(sub, *f);
  sub.footer("Exit 5 when some members did not answer, 2 when none did. -o wide adds POD, READY, ENDPOINT.");
  sub.callback([&action, &program, f] {
    action = [&program, f] {
      auto ctx = open(*f, program);
      if (!ctx) return fail(program, ctx.error());
      auto report = admin::cluster_status(ctx->session);
      auto doc = admin::status_document(report);
      return print(program, admin::status_text(doc, ctx->format) + output::render(doc, admin::status_view(), ctx->format),
                   admin::status_exit_code(report));
    };
  });
}

namespace {

void setup_member_list(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<CommonFlags>();
  auto probe = std::make_shared<bool>(false);
  add_common_flags(sub, *f);
  sub.add_flag("--probe", *probe,
               "Also ask every member for its Status: a REACHABLE column, exit 5 when some did not answer");
  sub.footer("etcd's MemberList, asked of the first member that answers (as etcdctl does; no other member is\n"
             "dialled), joined with the EtcdMembers and Pods. Exit 0 once the membership was read.\n"
             "--probe (implied by -o wide) asks every member for its Status as well: REACHABLE column and\n"
             "`reachable` field, exit 5 when some members did not answer. -o wide adds CLIENT URL.");
  sub.callback([&action, &program, f, probe] {
    action = [&program, f, probe] {
      auto ctx = open(*f, program);
      if (!ctx) return fail(program, ctx.error());
      const bool probing = *probe || ctx->format == output::Format::Wide;
      auto report = admin::member_list(ctx->session, probing);
      if (!report) return fail(program, report.error());
      return print(program,
                   output::render(admin::member_list_document(*report), admin::member_list_view(probing), ctx->format),
                   admin::member_list_exit_code(*report));
    };
  });
}

}  // namespace

void setup_member(CLI::App& sub, cli::Action& action, cli::Program& program) {
  sub.require_subcommand(1);
  setup_member_list(*sub.add_subcommand("list", "List the members: etcd, EtcdMembers and Pods side by side"), action,
                    program);
  setup_member_add(*sub.add_subcommand("add", "Add a member as a learner (through the operator, or --break-glass)"),
                   action, program);
  setup_member_promote(*sub.add_subcommand("promote", "Promote a learner once it is in sync"), action, program);
  setup_member_remove(*sub.add_subcommand("remove", "Remove a member, a stray or orphan etcd member, or a ghost EtcdMember"),
                      action, program);
  setup_member_replace(*sub.add_subcommand("replace", "Replace a member: remove it, then add a new one in its place"),
                       action, program);
  setup_member_roll(*sub.add_subcommand("roll", "Restart a PVC member's Pod through the operator (same data and ID)"),
                    action, program);
  setup_member_unwedge(*sub.add_subcommand("unwedge", "Find and fix what keeps the operator stuck"),
                       action, program);
}

void setup_members(CLI::App& sub, cli::Action& action, cli::Program& program) {
  setup_member_list(sub, action, program);
}

}  // namespace kubectl_etcd
