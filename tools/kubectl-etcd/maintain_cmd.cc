// compact, alarm list|disarm, defrag, move-leader and the Go plugin's
// forfeit-leadership and (refused) add-member.
#include <optional>

#include "admin/defrag.h"
#include "admin/defrag_cr.h"
#include "admin/maintenance.h"
#include "base/duration.h"
#include "base/outcome.h"
#include "cli/progress.h"
#include "commands.h"
#include "etcd/member_id.h"
#include "flags.h"
#include "operator/quantity.h"

namespace kubectl_etcd {

void setup_compact(CLI::App& sub, cli::Action& action, cli::Program& program) {
  struct Opts {
    CommonFlags common;
    std::optional<std::int64_t> revision, keep;
    bool physical = false;
  };
  auto o = options<Opts>();
  add_common_flags(sub, o->common);
  sub.add_option("--revision", o->revision, "Compact up to this revision (default: the current one)");
  sub.add_option("--keep", o->keep, "Keep this many revisions: compact to current - N");
  sub.add_flag("--physical", o->physical, "Wait until the compaction is physically applied");
  sub.callback([&action, &program, o] {
    action = [&program, o] {
      auto ctx = open(o->common, program);
      if (!ctx) return fail(program, ctx.error());
      admin::CompactRequest r{o->revision, o->keep, o->physical};
      auto rev = admin::compact(ctx->session, r);
      if (!rev) return fail(program, rev.error());
      nlohmann::ordered_json doc{{"revision", *rev}};
      output::View v;
      v.text = [](const nlohmann::ordered_json& d) {
        return "compacted revision " + std::to_string(d["revision"].get<std::int64_t>()) + "\n";
      };
      return print(program, output::render(doc, v, ctx->format), 0);
    };
  });
}

void setup_alarm(CLI::App& sub, cli::Action& action, cli::Program& program) {
  sub.require_subcommand(1);
  {
    auto f = options<CommonFlags>();
    auto& list = *sub.add_subcommand("list", "List the raised alarms (MEMBER ID ALARM)");
    add_common_flags(list, *f);
    list.callback([&action, &program, f] {
      action = [&program, f] {
        auto ctx = open(*f, program);
        if (!ctx) return fail(program, ctx.error());
        auto rows = admin::alarm_list(ctx->session);
        if (!rows) return fail(program, rows.error());
        return print(program, output::render(admin::alarm_document(*rows, false), admin::alarm_view(false), ctx->format),
                     0);
      };
    });
  }
  struct Opts {
    CommonFlags common;
    std::string member, alarm;
    bool force = false;
  };
  auto o = options<Opts>();
  auto& disarm = *sub.add_subcommand("disarm", "Deactivate the raised alarms, each (member, type)");
  add_common_flags(disarm, o->common);
  disarm.add_option("--member", o->member, "Only this member's alarms (name or ID)");
  disarm.add_option("--alarm", o->alarm, "Only this alarm type")->check(CLI::IsMember({"NOSPACE", "CORRUPT"}));
  disarm.add_flag("--force", o->force, "Also disarm CORRUPT alarms");
  disarm.footer("Exit 0 all disarmed (or none raised), 5 some failed, 3 all refused (CORRUPT without --force), 1 failed.");
  disarm.callback([&action, &program, o] {
    action = [&program, o] {
      auto ctx = open(o->common, program);
      if (!ctx) return fail(program, ctx.error());
      admin::DisarmRequest r;
      if (!o->member.empty()) {
        auto id = admin::resolve_member(ctx->session, o->member);
        if (!id) return fail(program, id.error());
        r.member = *id;
      }
      r.alarm = o->alarm;
      r.force = o->force;
      auto rep = admin::alarm_disarm(ctx->session, r);
      if (!rep) return fail(program, rep.error());
      for (const auto& w : rep->warnings) program.diag->warning(w);
      return print(program, output::render(admin::alarm_document(rep->rows, true), admin::alarm_view(true), ctx->format),
                   base::aggregate_exit_code(rep->outcomes));
    };
  });
}

namespace {

struct DefragOpts {
  CommonFlags common;
  std::string member;
  bool all = false, dry_run = false, via_cr = false;
  std::string free_space_above = "200Mi", quota_usage_above, min_reclaim, member_timeout = "10m";
  std::string name, timeout = "30m";
  bool free_space_given = false, member_timeout_given = false;
};

int run_defrag_via_cr(cli::Program& program, const DefragOpts& o, const admin::DefragRequest& direct) {
  if (!o.member.empty() || !o.common.pod.empty() || o.dry_run || o.member_timeout_given) {
    return fail(program, base::make_error(base::ErrorKind::Usage,
                                         "--via-cr takes none of --member, -p, --dry-run, --member-timeout", {},
                                         "an EtcdDefrag always covers the whole cluster and the operator times each member"));
  }
  auto timeout = base::parse_duration(o.timeout);
  if (!timeout) return fail(program, timeout.error());
  auto ctx = open(o.common, program);
  if (!ctx) return fail(program, ctx.error());
  if (!ctx->kube) return fail(program, base::make_error(base::ErrorKind::Usage, "--via-cr needs a cluster (-c)"));
  admin::DefragCrRequest r;
  r.name = o.name;
  r.rule = direct.rule;
  r.free_space_given = o.free_space_given;
  r.min_reclaim_given = !o.min_reclaim.empty();
  r.timeout = *timeout;
  cli::Diag& diag = *program.diag;
  auto rows = admin::defrag_via_cr(*ctx->kube, ctx->session.target, r,
                                   [&diag](const std::string& line) { diag.note(line); });
  if (!rows) return fail(program, rows.error());
  return print(program, output::render(admin::defrag_document(*rows), admin::defrag_view(), ctx->format),
               base::aggregate_exit_code(admin::defrag_outcomes(*rows)));
}

}  // namespace

void setup_defrag(CLI::App& sub, cli::Action& action, cli::Program& program) {
  using Opts = DefragOpts;
  auto o = options<Opts>();
  add_common_flags(sub, o->common);
  sub.add_option("--member", o->member, "Defragment this member only, unconditionally (as -p)");
  sub.add_flag("--all", o->all, "Defragment every member whatever its free space");
  sub.add_option("--free-space-above", o->free_space_above, "Defragment when reclaimable space exceeds this")
      ->default_str("200Mi");
  sub.add_option("--quota-usage-above", o->quota_usage_above,
                 "When the db uses more than this share of its quota (e.g. 80%), --min-reclaim is the floor");
  sub.add_option("--min-reclaim", o->min_reclaim, "Floor under --quota-usage-above (default 32Mi)");
  sub.add_option("--member-timeout", o->member_timeout, "Budget of one member's Defragment")->default_str("10m");
  sub.add_flag("--dry-run", o->dry_run, "Print which members would be defragmented, in order; change nothing");
  sub.add_flag("--via-cr", o->via_cr, "Through an EtcdDefrag the operator runs (the same rule), waiting for its result");
  sub.add_option("--name", o->name, "--via-cr: the EtcdDefrag's name (default <cluster>-defrag-<UTC yyyymmdd-hhmmss>)");
  sub.add_option("--timeout", o->timeout,
                 "--via-cr: how long to wait for Complete or Failed (no status within 1m, or this when shorter: "
                 "refused, the EtcdDefrag deleted)")
      ->default_str("30m");
  sub.footer("Cluster-wide: followers first, the leader last, one at a time while the cluster is healthy;\n"
             "learners are skipped. Rows: NAME ROLE OUTCOME REASON BEFORE AFTER RECLAIMED (-o wide adds ID, ERROR).\n"
             "--via-cr: an EtcdDefrag instead, with progress on stderr; refused (3) when the operator does not\n"
             "run, and when nothing writes the EtcdDefrag a status within 1m (or --timeout, when shorter): no\n"
             "EtcdDefrag controller runs (this operator version has none), so the object is deleted; 4 when it\n"
             "was picked up but did not finish in time (the object stays).");
  sub.callback([&action, &program, o, &sub] {
    o->free_space_given = sub.count("--free-space-above") > 0;
    o->member_timeout_given = sub.count("--member-timeout") > 0;
    action = [&program, o] {
      admin::DefragRequest r;
      r.rule.all = o->all;
      r.dry_run = o->dry_run;
      auto size = [](const std::string& flag, const std::string& v) -> base::Result<std::int64_t> {
        auto q = op::parse_quantity(v);
        if (!q) return base::make_error(base::ErrorKind::Usage, "invalid " + flag + " \"" + v + "\"", {}, "e.g. 200Mi");
        return q->ceil_int();
      };
      auto fs = size("--free-space-above", o->free_space_above);
      if (!fs) return fail(program, fs.error());
      r.rule.free_space_above = *fs;
      if (!o->min_reclaim.empty()) {
        auto mr = size("--min-reclaim", o->min_reclaim);
        if (!mr) return fail(program, mr.error());
        r.rule.min_reclaim = *mr;
      }
      if (!o->quota_usage_above.empty()) {
        std::string v = o->quota_usage_above;
        if (!v.empty() && v.back() == '%') v.pop_back();
        try {
          std::size_t used = 0;
          r.rule.quota_usage_above = std::stod(v, &used);
          if (used != v.size()) throw std::invalid_argument(v);
        } catch (...) {
          return fail(program, base::make_error(base::ErrorKind::Usage,
                                               "invalid --quota-usage-above \"" + o->quota_usage_above + "\"", {},
                                               "e.g. 80%"));
        }
      }
      if (auto st = admin::validate(r.rule, !o->min_reclaim.empty()); !st) return fail(program, st.error());
      if (o->via_cr) return run_defrag_via_cr(program, *o, r);
      auto mt = base::parse_duration(o->member_timeout);
      if (!mt) return fail(program, mt.error());
      r.member_timeout = *mt;
      auto ctx = open(o->common, program);
      if (!ctx) return fail(program, ctx.error());
      r.member = !o->member.empty() ? o->member : o->common.pod;
      cli::Diag& diag = *program.diag;
      auto rows = admin::defrag(ctx->session, r, [&diag](const admin::DefragRow& row) {
        diag.note("defrag " + row.name + " (" + row.role + "): " + row.outcome +
                  (row.reason.empty() ? "" : " (" + row.reason + ")"));
      });
      if (!rows) return fail(program, rows.error());
      return print(program, output::render(admin::defrag_document(*rows), admin::defrag_view(), ctx->format),
                   base::aggregate_exit_code(admin::defrag_outcomes(*rows)));
    };
  });
}

namespace {

int run_move_leader(cli::Program& program, Context& ctx, const std::string& target) {
  auto r = admin::move_leader(ctx.session, target);
  if (!r) return fail(program, r.error());
  return print(program, output::render(admin::move_leader_document(*r), admin::move_leader_view(), ctx.format), 0);
}

}  // namespace

void setup_move_leader(CLI::App& sub, cli::Action& action, cli::Program& program) {
  struct Opts {
    CommonFlags common;
    std::string target;
  };
  auto o = options<Opts>();
  add_common_flags(sub, o->common);
  sub.add_option("target", o->target,
                 "Member name or ID (default: the started, healthy voter with the highest applied index)");
  sub.callback([&action, &program, o] {
    action = [&program, o] {
      auto ctx = open(o->common, program);
      if (!ctx) return fail(program, ctx.error());
      return run_move_leader(program, *ctx, o->target);
    };
  });
}

void setup_forfeit_leadership(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<CommonFlags>();
  add_common_flags(sub, *f);
  sub.footer("Go plugin alias: with -p, move-leader if that pod leads; otherwise says so and exits 0.");
  sub.callback([&action, &program, f] {
    action = [&program, f] {
      if (f->pod.empty()) {
        return fail(program, base::make_error(base::ErrorKind::Usage, "you must specify the pod name (-p)"));
      }
      auto ctx = open(*f, program);
      if (!ctx) return fail(program, ctx.error());
      const auto* self = ctx->session.target.selected().front();
      auto st = ctx->session.etcd->status(self->endpoint);
      if (!st) return fail(program, st.error());
      if (!st->is_leader()) return print(program, f->pod + " is not the leader\n", 0);
      ctx->session.target.pod.clear();  // the new leader is chosen among all members
      return run_move_leader(program, *ctx, {});
    };
  });
}

void setup_add_member(CLI::App& sub, cli::Action& action, cli::Program& program) {
  // The shared flags parse as in every command (before or after its name),
  // though the command is always refused.
  auto f = options<CommonFlags>();
  add_common_flags(sub, *f);
  auto url = std::make_shared<std::string>();
  sub.add_option("url", *url, "Peer URL (refused)");
  sub.allow_extras();
  sub.callback([&action, &program] {
    action = [&program] {
      return fail(program,
                  base::make_error(base::ErrorKind::Refused,
                                  "add-member is refused: a voting member without an EtcdMember breaks the operator "
                                  "(it never counts, promotes or removes it, and it is a stray voter that silently "
                                  "costs fault tolerance)",
                                  {}, "use `kubectl etcd member add`, which adds a learner through an EtcdMember"));
    };
  });
}

}  // namespace kubectl_etcd
