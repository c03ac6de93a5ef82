#include "admin/unwedge_exec.h"

#include "admin/kube_util.h"
#include "base/json_at.h"
#include "base/rfc3339.h"
#include "base/step_engine.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/client.h"
#include "kube/status_error.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

using json = nlohmann::json;
using Answer = base::StepAnswer;

namespace {

std::string rfc3339(std::chrono::system_clock::time_point t) {
  return base::format_rfc3339(std::chrono::system_clock::to_time_t(t));
}

class Fixer {
 public:
  Fixer(MemberEnv& env, const ExecOptions& o)
      : env_(env), kube_(*env.kube), o_(o), ns_(env.session->target.ns), c_(env.session->target.cluster) {}

  base::Result<Answer> run(const UnwedgeFix& f) {
    switch (f.id) {
      case FixId::ClearId: return clear_id(f);
      case FixId::Release: return release(f);
      case FixId::RemoveLearner: return remove_learner(f);
      case FixId::ExpireDeadline: return expire_deadline();
    }
    return base::make_error(base::ErrorKind::Failed, std::string("unknown fix ") + fix_name(f.id));
  }

 private:
  base::Result<json> member(const std::string& m) {
    auto o = kube_.get(op::resources::etcdmembers, ns_, m);
    if (!o && kube::is_not_found(o.error())) return json();
    return o;
  }

  // The fix's member ID, name or peer URL (as planned) in a fresh
  // linearizable MemberList.
  base::Result<bool> listed(const UnwedgeFix& f) {
    auto l = env_.session->etcd->member_list(true);
    if (!l) return std::move(l).error();
    return find_member(*l, f.etcd_id, f.member, f.peer_url) != nullptr;
  }

  base::Result<Answer> clear_id(const UnwedgeFix& f) {
    auto m = member(f.member);
    if (!m) return std::move(m).error();
    if (m->is_null()) return Answer::already("EtcdMember gone");
    if (base::string_at(*m, "/status/memberID").empty()) return Answer::already("no memberID");
    auto l = listed(f);
    if (!l) return std::move(l).error();
    if (*l) return base::make_error(base::ErrorKind::Failed, "etcd lists " + f.member + " again: its finalizer has work to do");
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdmembers, ns_, f.member, kube::PatchType::Merge,
                         guarded(*m, {{"status", {{"memberID", ""}}}}), po);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    return Answer::did("memberID cleared");
  }

  base::Result<Answer> release(const UnwedgeFix& f) { return release_finalizer(env_, f.member, f.etcd_id, f.peer_url); }

  base::Result<Answer> remove_learner(const UnwedgeFix& f) {
    auto l = env_.session->etcd->member_list(true);
    if (!l) return std::move(l).error();
    const etcd::Member* e = nullptr;
    for (const auto& x : l->members) {
      if (x.id == f.etcd_id) e = &x;
    }
    if (e == nullptr) return Answer::already("etcd does not list it");
    if (!e->is_learner) {
      return base::make_error(base::ErrorKind::Failed,
                             "member " + etcd::format_member_id(f.etcd_id) + " was promoted meanwhile");
    }
    auto r = retry_while_unhealthy([&] { return env_.session->etcd->member_remove(f.etcd_id); }, o_.timeout,
                                   o_.progress);
    if (!r) {
      if (r.error().reason != etcd::reason::kMemberNotFound) return std::move(r).error();
      auto again = env_.session->etcd->member_list(true);
      if (!again) return std::move(again).error();
      for (const auto& x : again->members) {
        if (x.id == f.etcd_id) return std::move(r).error();
      }
      return Answer::already("already removed");
    }
    return Answer::did("removed learner " + etcd::format_member_id(f.etcd_id));
  }

  base::Result<Answer> expire_deadline() {
    auto cl = kube_.get(op::resources::etcdclusters, ns_, c_);
    if (!cl) return std::move(cl).error();
    const auto now = std::chrono::system_clock::now();
    auto t = base::parse_rfc3339(base::string_at(*cl, "/status/progressDeadline"));
    if (!t || *t <= now) return Answer::already("progressDeadline not ahead");
    const std::string past = rfc3339(now - std::chrono::seconds(1));
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                         guarded(*cl, {{"status", {{"progressDeadline", past}}}}), po);
    if (!r) return std::move(r).error();
    return Answer::did("progressDeadline " + past);
  }

  MemberEnv& env_;
  kube::Client& kube_;
  const ExecOptions& o_;
  std::string ns_, c_;
};

}  // namespace

base::Result<std::vector<UnwedgeOutcome>> execute_unwedge(MemberEnv& env, const UnwedgePlan& plan,
                                                         const ExecOptions& options) {
  Fixer fixer(env, options);
  // The engine's steps are the plan's fixes, by position; each dispatches on its typed id.
  std::vector<std::size_t> steps;
  for (std::size_t i = 0; i < plan.fixes.size(); ++i) steps.push_back(i);
  // A 409: the object changed between read and write; read and decide again.
  base::StepPolicy policy;
  policy.attempts = 5;
  policy.retry_if = [](const base::Error& e) { return kube::is_conflict(e); };
  std::vector<UnwedgeOutcome> out;
  auto run = base::run_steps<std::size_t>(
      steps, [&](std::size_t i) { return fixer.run(plan.fixes[i]); }, policy,
      [&](const base::StepRecord<std::size_t>& r) {
        const UnwedgeFix& f = plan.fixes[r.id];
        out.push_back({fix_name(f.id), f.member, outcome_word(r.answer), r.answer.detail});
        if (options.after_step) options.after_step(fix_name(f.id));
      });
  if (!run.finished()) {
    if (run.error) return std::move(*run.error);
    return base::make_error(base::ErrorKind::Interrupted, "stopped between two fixes", {}, "re-run to finish");
  }
  return out;
}

nlohmann::ordered_json unwedge_exec_document(const UnwedgePlan& plan, const std::vector<UnwedgeOutcome>& done) {
  nlohmann::ordered_json d = unwedge_document(plan);
  for (std::size_t i = 0; i < done.size() && i < d["fixes"].size(); ++i) {
    d["fixes"][i]["outcome"] = done[i].outcome;
    d["fixes"][i]["detail"] = done[i].detail;
  }
  return d;
}

}  // namespace admin
