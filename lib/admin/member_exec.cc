// Runs a member plan on the step engine: the run, the dispatch to the
// steps (member_runner.h), the release of a finalizer, the pause of etcd's
// "unhealthy cluster" retries, and the document of a run.
#include "admin/member_exec.h"

#include "admin/member_runner.h"

#include "admin/cert_check.h"
#include "admin/consistency.h"
#include "admin/kube_util.h"
#include "admin/member_handover.h"
#include "admin/member_object.h"
#include "admin/member_render.h"
#include "admin/member_wait.h"
#include "admin/operator_scale.h"
#include "admin/target.h"
#include "admin/wait_progress.h"
#include "base/json_at.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/client.h"
#include "kube/conditions.h"
#include "kube/status_error.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"
#include "operator/scale_target.h"

namespace admin {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using Answer = base::StepAnswer;

const char* outcome_word(const Answer& answer) { return answer.acted() ? "done" : "skipped"; }

namespace exec_detail {

std::string budget(std::chrono::milliseconds t) {
  return t.count() % 1000 == 0 ? std::to_string(t.count() / 1000) + "s" : std::to_string(t.count()) + "ms";
}

base::Result<json> cluster_items(KubeCalls& kube, const kube::Resource& r, const std::string& ns,
                                 const std::string& c) {
  kube::ListOptions lo;
  lo.label_selector = std::string(op::kLabelCluster) + "=" + c;
  auto l = kube.list_all(r, ns, lo);
  if (!l) return std::move(l).error();
  return base::array_at(*l, "/items");
}

base::Result<ExecReport> Runner::run() {
  std::vector<MemberStep> ids;
  for (const auto& s : plan_.steps) ids.push_back(s.id);
  // A 409: the object changed between the step's read and its write; the
  // step reads and decides again.
  base::StepPolicy policy;
  policy.attempts = 6;
  policy.retry_if = [](const base::Error& e) { return kube::is_conflict(e); };
  auto run = base::run_steps<MemberStep>(
      ids, [this](MemberStep s) { return do_step(s); }, policy,
      [this](const base::StepRecord<MemberStep>& r) {
        report_.steps.push_back({r.id, outcome_word(r.answer), r.answer.detail});
        if (o_.step_done) o_.step_done(report_.steps.back());
        if (o_.after_step) o_.after_step(step_name(r.id));
      },
      [this](MemberStep s, const base::Error&) {
        progress(std::string(step_name(s)) + ": the object changed meanwhile; reading it again");
      });
  if (!run.finished()) {
    if (run.error) return std::move(*run.error);
    return base::make_error(base::ErrorKind::Interrupted, "stopped between two steps", {}, "re-run to finish");
  }
  report_.member = added_.empty() || plan_.op == MemberOp::Remove ? plan_.member : added_;
  report_.id = plan_.op == MemberOp::Remove ? plan_.id : (added_id_ != 0 ? added_id_ : plan_.id);
  return report_;
}

// --- steps ---------------------------------------------------------------------
base::Result<Answer> Runner::do_step(MemberStep s) {
  switch (s) {
    case MemberStep::Scale: return scale();
    case MemberStep::Grow: return grow();
    case MemberStep::CreateMember: return create_member();
    case MemberStep::Register: return register_learner();
    case MemberStep::Wire: return wire();
    case MemberStep::Render: return render();
    case MemberStep::Record: return record();
    case MemberStep::Ready: return ready();
    case MemberStep::Promote: return promote();
    case MemberStep::MarkVoter: return mark_voter();
    case MemberStep::Pdb: return pdb();
    case MemberStep::MoveLeader: return move_leader();
    case MemberStep::ClearId: return clear_id();
    case MemberStep::DeleteMember: return delete_member();
    case MemberStep::RemoveEtcd: return remove_etcd();
    case MemberStep::Release: return release();
    case MemberStep::Count: return count();
    case MemberStep::WaitAdded: return wait_added();
    case MemberStep::WaitRemoved: return wait_removed();
    case MemberStep::WaitFilled: return wait_filled();
    case MemberStep::ForceDeletePod: return force_delete_pod();
    case MemberStep::MarkRoll: return mark_roll();
    case MemberStep::DeletePod: return delete_pod();
    case MemberStep::WaitPod: return wait_pod();
    case MemberStep::Rejoin: return rejoin();
    case MemberStep::UnmarkRoll: return unmark_roll();
  }
  return base::make_error(base::ErrorKind::Failed, std::string("unknown step ") + step_name(s));
}

}  // namespace exec_detail

using exec_detail::budget;
using exec_detail::Runner;

base::Result<Answer> release_finalizer(MemberEnv& env, const std::string& member, std::uint64_t id,
                                       const std::string& peer_url) {
  ClientKubeCalls kube(*env.kube);
  SessionEtcdCalls etcd(*env.session);
  return release_finalizer(kube, etcd, env.session->target.ns, member, id, peer_url);
}

base::Result<Answer> release_finalizer(KubeCalls& kube, EtcdCalls& etcd, const std::string& ns, const std::string& member,
                                       std::uint64_t id, const std::string& peer_url) {
  auto m = kube.get(op::resources::etcdmembers, ns, member);
  if (!m && kube::is_not_found(m.error())) return Answer::already("EtcdMember gone");
  if (!m) return std::move(m).error();
  json fins = json::array();
  bool had = false;
  for (const auto& f : base::array_at(*m, "/metadata/finalizers")) {
    if (f == std::string(op::kMemberFinalizer)) had = true;
    else fins.push_back(f);
  }
  if (!had) return Answer::already("no finalizer");
  auto l = etcd.member_list();
  if (!l) return std::move(l).error();
  if (find_member(*l, id, member, peer_url) != nullptr) {
    return base::make_error(base::ErrorKind::Failed, "etcd still lists " + member + ": the finalizer stays");
  }
  auto r = kube.patch(op::resources::etcdmembers, ns, member, kube::PatchType::Merge,
                      guarded(*m, {{"metadata", {{"finalizers", fins}}}}));
  if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
  return Answer::did("finalizer removed");
}

base::Status detail::unhealthy_pause(Clock::time_point end, std::chrono::milliseconds& delay,
                                    std::chrono::milliseconds timeout,
                                    const std::function<void(const std::string&)>& progress) {
  if (Clock::now() + delay > end) {
    return base::make_error(base::ErrorKind::Timeout,
                           "timed out after " + budget(timeout) + " waiting: etcd refuses membership changes until its members are connected a while",
                           {}, "re-run the same command to resume");
  }
  if (progress) progress("etcd refuses membership changes until its members are connected a while");
  std::this_thread::sleep_for(delay);
  delay = std::min(delay * 2, std::chrono::milliseconds(5000));
  return {};
}

base::Result<ExecReport> execute(MemberEnv& env, const MemberPlan& plan, const MemberRequest& request,
                                const ExecOptions& options) {
  ClientKubeCalls kube(*env.kube);
  SessionEtcdCalls etcd(*env.session);
  return execute(env, kube, etcd, plan, request, options);
}

base::Result<ExecReport> execute(MemberEnv& env, KubeCalls& kube, EtcdCalls& etcd, const MemberPlan& plan,
                                const MemberRequest& request, const ExecOptions& options) {
  Runner r(env, kube, etcd, plan, request, options);
  if (!plan.added.empty()) r.set_added(plan.added);
  return r.run();
}

nlohmann::ordered_json exec_document(const MemberPlan& plan, const ExecReport& report) {
  nlohmann::ordered_json d = plan_document(plan);
  d["member"] = report.member;
  d["id"] = report.id == 0 ? std::string() : etcd::format_member_id(report.id);
  d["steps"] = nlohmann::ordered_json::array();
  for (const auto& s : report.steps) d["steps"].push_back({{"step", step_name(s.step)}, {"outcome", s.outcome}, {"detail", s.detail}});
  return d;
}

}  // namespace admin
