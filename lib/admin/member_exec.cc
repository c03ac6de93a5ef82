// Over 600 lines on purpose: the break-glass steps are methods of one Runner
// that share what earlier steps learnt (the member added, its ID, the Pod
// rendered); the order, the records, the retries on a conflict and the
// resumption rule are the step engine's (docs/step-engine.md). Reading state
// and scaling the operator live in their own files.
#include "admin/member_exec.h"

#include <algorithm>
#include <optional>
#include <thread>

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

namespace admin {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using Answer = base::StepAnswer;

const char* outcome_word(const Answer& answer) { return answer.acted() ? "done" : "skipped"; }

namespace {

// A --timeout as given: whole seconds, else milliseconds.
std::string budget(std::chrono::milliseconds t) {
  return t.count() % 1000 == 0 ? std::to_string(t.count() / 1000) + "s" : std::to_string(t.count()) + "ms";
}

// The Ready condition of a Pod or a Node.
// The items of cluster c's objects of kind r: a LIST by the cluster label.
base::Result<json> cluster_items(kube::Client& kube, const kube::Resource& r, const std::string& ns,
                                const std::string& c) {
  kube::ListOptions lo;
  lo.label_selector = std::string(op::kLabelCluster) + "=" + c;
  auto l = kube.list_all(r, ns, lo);
  if (!l) return std::move(l).error();
  return base::array_at(*l, "/items");
}

class Runner {
 public:
  Runner(MemberEnv& env, const MemberPlan& plan, const MemberRequest& req, const ExecOptions& o)
      : env_(env), kube_(*env.kube), plan_(plan), req_(req), o_(o) {
    ns_ = env.session->target.ns;
    c_ = env.session->target.cluster;
    member_ = plan.op == MemberOp::Replace ? plan.added : plan.member;
    if (plan.op == MemberOp::Add) member_ = plan.added;
    id_ = plan.id;
  }

  base::Result<ExecReport> run() {
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

 private:
  void progress(const std::string& s) {
    if (o_.progress) o_.progress(s);
  }

  // --- reads ---------------------------------------------------------------------
  base::Result<json> cluster() { return kube_.get(op::resources::etcdclusters, ns_, c_); }
  base::Result<json> member(const std::string& m) { return kube_.get(op::resources::etcdmembers, ns_, m); }
  base::Result<json> items(const kube::Resource& r) { return cluster_items(kube_, r, ns_, c_); }
  base::Result<json> get_opt(const kube::Resource& r, const std::string& name) {
    auto o = kube_.get(r, ns_, name);
    if (!o && kube::is_not_found(o.error())) return json();
    return o;
  }
  base::Result<etcd::MemberList> members_now() { return env_.session->etcd->member_list(true); }

  // --- steps ---------------------------------------------------------------------
  base::Result<Answer> do_step(MemberStep s) {
    switch (s) {
      case MemberStep::Scale: return scale(+1);
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

  // The member the add part works on (created, or resumed).
  const std::string& adding() const { return added_.empty() ? member_ : added_; }

  base::Result<Answer> scale(int delta) {
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    long long n = base::int_at(*cl, "/spec/replicas", 3);
    auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                         guarded(*cl, {{"spec", {{"replicas", n + delta}}}}));
    if (!r) return std::move(r).error();
    return Answer::did("spec.replicas " + std::to_string(n + delta));
  }

  base::Result<Answer> grow() {
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    const long long want = plan_.replicas + 1;
    long long spec = base::int_at(*cl, "/spec/replicas", 3);
    if (spec != want) {
      auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                           guarded(*cl, {{"spec", {{"replicas", want}}}}));
      if (!r) return std::move(r).error();
      cl = std::move(r);
    }
    if (base::int_at(*cl, "/status/observed/replicas") != want) {
      kube::PatchOptions po;
      po.subresource = "status";
      auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                           guarded(*cl, {{"status", {{"observed", {{"replicas", want}}}, {"progressDeadline", nullptr}}}}),
                           po);
      if (!r) return std::move(r).error();
    }
    return Answer::did("replicas " + std::to_string(want));
  }

  base::Result<Answer> create_member() {
    if (!added_.empty()) return Answer::already(added_);
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    auto r = kube_.create(op::resources::etcdmembers, ns_, new_member(*cl));
    if (!r) return std::move(r).error();
    added_ = name_of(*r);
    progress("created EtcdMember " + added_);
    return Answer::did(added_);
  }

  base::Result<Answer> register_learner() {
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    auto m = member(adding());
    if (!m) return std::move(m).error();
    const std::string url = peer_url(*cl, *m);
    auto l = members_now();
    if (!l) return std::move(l).error();
    if (const auto* e = find_member(*l, 0, {}, url)) {
      added_id_ = e->id;
      add_members_ = l->members;
      return Answer::already("already registered as " + etcd::format_member_id(e->id));
    }
    auto r = retry_while_unhealthy([&] { return env_.session->etcd->member_add({url}, true); }, o_.timeout, o_.progress);
    if (!r) {
      if (r.error().reason != etcd::reason::kPeerURLExists) return std::move(r).error();
      auto again = members_now();
      if (!again) return std::move(again).error();
      const auto* e = find_member(*again, 0, {}, url);
      if (e == nullptr) return std::move(r).error();
      added_id_ = e->id;
      add_members_ = again->members;
      return Answer::already("already registered as " + etcd::format_member_id(e->id));
    }
    added_id_ = r->member.id;
    add_members_ = r->members;
    return Answer::did("learner " + etcd::format_member_id(added_id_));
  }

  base::Result<Answer> wire() {
    auto m = member(adding());
    if (!m) return std::move(m).error();
    if (!base::string_at(*m, "/spec/initialCluster").empty()) return Answer::already("already wired");
    if (add_members_.empty()) {
      auto l = members_now();
      if (!l) return std::move(l).error();
      add_members_ = l->members;
    }
    json patch = {{"metadata", {{"labels", {{std::string(op::kLabelComponent), adding()}}}}},
                  {"spec", {{"initialCluster", initial_cluster(add_members_)}}}};
    auto r = kube_.patch(op::resources::etcdmembers, ns_, adding(), kube::PatchType::Merge, guarded(*m, patch));
    if (!r) return std::move(r).error();
    return Answer::did("initialCluster " + initial_cluster(add_members_));
  }

  base::Result<Answer> render() {
    auto pod = get_opt(kube::resources::pods, adding());
    if (!pod) return std::move(pod).error();
    if (!pod->is_null()) return Answer::already("Pod exists");
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    auto m = member(adding());
    if (!m) return std::move(m).error();
    auto [dns, dname] = operator_coords(env_.operator_deployment);
    auto dep = kube_.get(kube::resources::deployments, dns, dname);
    auto pods = items(kube::resources::pods);
    if (!pods) return std::move(pods).error();
    const std::string repo = image_repository(dep ? *dep : json(), *pods);
    if (base::string_at(*m, "/spec/storage/medium") != "Memory") {
      auto pvc = get_opt(kube::resources::persistentvolumeclaims, op::member_pvc(adding()));
      if (!pvc) return std::move(pvc).error();
      if (pvc->is_null()) {
        auto r = kube_.create(kube::resources::persistentvolumeclaims, ns_, render_pvc(*m));
        if (!r && r.error().reason != "AlreadyExists") return std::move(r).error();
      }
    }
    auto r = kube_.create(kube::resources::pods, ns_, render_pod(*cl, *m, repo, env_.rendered_by));
    if (!r && r.error().reason != "AlreadyExists") return std::move(r).error();
    return Answer::did("image " + repo);
  }

  base::Result<Answer> record() {
    auto pod = kube_.get(kube::resources::pods, ns_, adding());
    if (!pod) return std::move(pod).error();
    auto m = member(adding());
    if (!m) return std::move(m).error();
    const bool mem = base::string_at(*m, "/spec/storage/medium") == "Memory";
    json status = {{"podName", adding()},
                   {"podUID", base::string_at(*pod, "/metadata/uid")},
                   {"pvcName", mem ? std::string() : op::member_pvc(adding())},
                   {"replicas", 1},
                   {"selector", std::string(op::kLabelCluster) + "=" + c_ + "," + std::string(op::kLabelComponent) +
                                    "=" + adding()}};
    bool same = true;
    for (const auto& [k, v] : status.items()) {
      const json* now = base::find_at(*m, "/status/" + base::pointer_token(k));
      if (now == nullptr || *now != v) same = false;
    }
    if (same) return Answer::already("already recorded");
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdmembers, ns_, adding(), kube::PatchType::Merge,
                         guarded(*m, {{"status", status}}), po);
    if (!r) return std::move(r).error();
    return Answer::did("pod " + base::string_at(*pod, "/metadata/uid"));
  }

  // Backoff 500 ms doubling to 5 s, bounded by the overall timeout.
  // Where the wait stands and why, once per change, as a line that stays
  // (docs/break-glass-design.md#waits); progress in between.
  template <class F>
  base::Result<Answer> poll(const std::string& what, F&& try_once) {
    // The operator-mediated waits share one budget: --timeout bounds them together.
    const auto end = operator_wait_ ? *operator_wait_ : Clock::now() + o_.timeout;
    auto delay = std::chrono::milliseconds(500);
    WaitProgress shown;
    for (;;) {
      stands_.clear();
      cause_.clear();
      auto r = try_once();
      if (!r) return std::move(r).error();
      if (r->has_value()) return **r;
      const auto now = Clock::now();
      if (now + delay > end) {
        return base::make_error(base::ErrorKind::Timeout,
                               "timed out after " + budget(o_.timeout) + " " + WaitProgress::describe(what, stands_, cause_),
                               {}, timeout_hint_.empty() ? "re-run the same command to resume" : timeout_hint_);
      }
      if (auto line = shown.observe(what, stands_, cause_, now,
                                    std::chrono::duration_cast<std::chrono::milliseconds>(end - now))) {
        if (line->stays && o_.note) o_.note(line->text);
        else progress(line->text);
      }
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::milliseconds(5000));
    }
  }

  base::Result<Answer> ready() {
    return poll("waiting for pod " + adding() + " to be Ready", [&]() -> base::Result<std::optional<Answer>> {
      auto m = member(adding());
      if (!m) return std::move(m).error();
      if (!base::string_at(*m, "/status/memberID").empty()) {
        return std::optional<Answer>(Answer::already(base::string_at(*m, "/status/memberID")));
      }
      auto pod = get_opt(kube::resources::pods, adding());
      if (!pod) return std::move(pod).error();
      if (pod->is_null() || !kube::condition_true(*pod, "Ready")) return std::optional<Answer>();
      auto cl = cluster();
      if (!cl) return std::move(cl).error();
      auto l = members_now();
      if (!l) return std::move(l).error();
      const auto* e = find_member(*l, 0, adding(), peer_url(*cl, *m));
      if (e == nullptr) return std::optional<Answer>();
      added_id_ = e->id;
      kube::PatchOptions po;
      po.subresource = "status";
      auto r = kube_.patch(op::resources::etcdmembers, ns_, adding(), kube::PatchType::Merge,
                           guarded(*m, {{"status", {{"memberID", etcd::format_member_id(e->id)}}}}), po);
      if (!r) return std::move(r).error();
      return std::optional<Answer>(Answer::did("memberID " + etcd::format_member_id(e->id)));
    });
  }

  // The member promote works on: the plan's target (promote), or the one added.
  std::string promoting() const { return plan_.op == MemberOp::Promote ? plan_.member : adding(); }

  base::Result<std::uint64_t> promoting_id() {
    if (plan_.op == MemberOp::Promote && plan_.id != 0) return plan_.id;
    if (added_id_ != 0) return added_id_;
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    auto m = member(promoting());
    if (!m) return std::move(m).error();
    auto l = members_now();
    if (!l) return std::move(l).error();
    const auto* e = find_member(*l, 0, promoting(), peer_url(*cl, *m));
    if (e == nullptr) return base::make_error(base::ErrorKind::Failed, "etcd does not list " + promoting());
    added_id_ = e->id;
    return e->id;
  }

  base::Result<Answer> promote() {
    auto id = promoting_id();
    if (!id) return std::move(id).error();
    auto r = poll("learner " + promoting() + " not yet in sync", [&]() -> base::Result<std::optional<Answer>> {
      auto p = env_.session->etcd->member_promote(*id);
      if (p) return std::optional<Answer>(Answer::did("promoted " + etcd::format_member_id(*id)));
      if (p.error().reason == etcd::reason::kLearnerNotReady) return std::optional<Answer>();
      if (p.error().reason == etcd::reason::kMemberNotLearner) {
        return std::optional<Answer>(Answer::already("already a voter"));
      }
      return std::move(p).error();
    });
    if (!r) return r;
    // Confirmed by a fresh linearizable MemberList (docs/break-glass-design.md#one-change-at-a-time).
    auto l = members_now();
    if (!l) return std::move(l).error();
    const auto* e = find_member(*l, *id, {}, {});
    if (e == nullptr || e->is_learner) {
      return base::make_error(base::ErrorKind::Failed,
                             "etcd does not list " + etcd::format_member_id(*id) + " as a voter after the promotion");
    }
    return r;
  }

  base::Result<Answer> mark_voter() {
    auto id = promoting_id();
    if (!id) return std::move(id).error();
    auto l = members_now();
    if (!l) return std::move(l).error();
    const auto* e = find_member(*l, *id, {}, {});
    if (e == nullptr || e->is_learner) {
      return base::make_error(base::ErrorKind::Failed, "etcd does not report " + promoting() + " as a voter yet");
    }
    auto m = member(promoting());
    if (!m) return std::move(m).error();
    std::string detail = "isVoter already true";
    if (!base::bool_at(*m, "/status/isVoter") || base::string_at(*m, "/status/memberID").empty()) {
      kube::PatchOptions po;
      po.subresource = "status";
      auto r = kube_.patch(op::resources::etcdmembers, ns_, promoting(), kube::PatchType::Merge,
                           guarded(*m, {{"status", {{"isVoter", true}, {"memberID", etcd::format_member_id(*id)}}}}),
                           po);
      if (!r) return std::move(r).error();
      detail = "isVoter true";
    }
    auto pod = get_opt(kube::resources::pods, promoting());
    if (!pod) return std::move(pod).error();
    if (!pod->is_null() && op::label(*pod, op::kLabelRole) != op::kRoleVoter) {
      auto r = kube_.patch(kube::resources::pods, ns_, promoting(), kube::PatchType::Merge,
                           guarded(*pod, {{"metadata", {{"labels", {{std::string(op::kLabelRole), std::string(op::kRoleVoter)}}}}}}));
      if (!r) return std::move(r).error();
      detail += ", role label";
    }
    return Answer::did(detail);
  }

  base::Result<Answer> pdb() {
    auto p = get_opt(kube::resources::poddisruptionbudgets, c_);
    if (!p) return std::move(p).error();
    if (p->is_null()) return Answer::already("no PodDisruptionBudget");
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    auto ms = items(op::resources::etcdmembers);
    if (!ms) return std::move(ms).error();
    long long voters = 0;
    for (const auto& m : *ms) {
      if (!m.contains("/metadata/deletionTimestamp"_json_pointer) && !base::bool_at(m, "/spec/dormant") &&
          base::bool_at(m, "/status/isVoter")) {
        ++voters;
      }
    }
    long long want = pdb_min_available(voters, base::int_at(*cl, "/status/observed/replicas"));
    const json* min_available = base::find_at(*p, "/spec/minAvailable");
    if (min_available != nullptr && *min_available == json(want) && base::find_at(*p, "/spec/maxUnavailable") == nullptr) {
      return Answer::already("minAvailable " + std::to_string(want));
    }
    auto r = kube_.patch(kube::resources::poddisruptionbudgets, ns_, c_, kube::PatchType::Merge,
                         guarded(*p, {{"spec", {{"minAvailable", want}, {"maxUnavailable", nullptr}}}}));
    if (!r) return std::move(r).error();
    return Answer::did("minAvailable " + std::to_string(want));
  }

  // --- removal ---------------------------------------------------------------------
  // Client URLs of the current members, from their Pods or etcd's own list.
  std::vector<std::pair<std::uint64_t, std::string>> endpoints(const etcd::MemberList& l) {
    std::vector<std::pair<std::uint64_t, std::string>> out;
    auto st = read_state(env_);
    for (const auto& e : l.members) {
      std::string ep;
      if (st) {
        for (const auto& t : member_targets(st->cluster, st->members, st->pods)) {
          if (t.name == e.name && !t.endpoint.empty()) ep = t.endpoint;
        }
      }
      if (ep.empty() && !e.client_urls.empty()) ep = e.client_urls.front();
      if (!ep.empty()) out.emplace_back(e.id, ep);
    }
    return out;
  }

  // One round of Status answers of the members etcd lists now.
  base::Result<std::vector<VoterStatus>> voter_statuses() {
    auto l = members_now();
    if (!l) return std::move(l).error();
    const auto eps = endpoints(*l);
    std::vector<std::string> urls;
    for (const auto& [id, ep] : eps) urls.push_back(ep);
    // Concurrently, under one deadline: a member that is down costs one timeout, not one each.
    const auto answers = env_.session->etcd->status_all(urls, env_.session->member_deadline());
    std::vector<VoterStatus> out;
    for (std::size_t i = 0; i < eps.size(); ++i) {
      VoterStatus v;
      v.id = eps[i].first;
      v.endpoint = eps[i].second;
      const auto* e = find_member(*l, v.id, {}, {});
      v.learner = e != nullptr && e->is_learner;
      if (i < answers.size() && answers[i].result) {
        const auto& st = *answers[i].result;
        v.answered = true;
        v.healthy = st.errors.empty();
        v.leader = st.leader;
        v.applied = st.raft_applied_index;
        v.learner = v.learner || st.is_learner;
      }
      out.push_back(std::move(v));
    }
    return out;
  }

  // docs/break-glass-design.md#leader-handover: decided from the answers of
  // now; done once the transferee reports itself leader.
  base::Result<Answer> move_leader() {
    auto statuses = voter_statuses();
    if (!statuses) return std::move(statuses).error();
    const Handover h = plan_handover(*statuses, plan_.id);
    if (h.kind == Handover::Kind::NotLeader) return Answer::already("the target does not lead (" + h.why + ")");
    const std::string who = plan_.member.empty() ? etcd::format_member_id(plan_.id) : plan_.member;
    if (h.kind == Handover::Kind::Cannot) {
      return base::make_error(base::ErrorKind::Failed, "cannot move leadership away from " + who + ": " + h.why, {},
                             "re-run once `kubectl etcd health -c " + c_ + "` shows a leader and a healthy voter");
    }
    auto r = env_.session->etcd->move_leader(h.leader_endpoint, h.to);
    if (!r) return std::move(r).error();
    std::string to_ep;
    for (const auto& v : *statuses) {
      if (v.id == h.to) to_ep = v.endpoint;
    }
    const auto until = Clock::now() + env_.session->target.config.call_timeout;
    for (;;) {
      auto st = env_.session->etcd->status(to_ep);
      if (st && st->is_leader()) return Answer::did("leader now " + etcd::format_member_id(h.to));
      if (Clock::now() > until) {
        return base::make_error(base::ErrorKind::Failed, "MoveLeader was accepted but " + etcd::format_member_id(h.to) +
                                                           " does not lead yet", {}, "re-run to resume");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  // Right before the write that takes the target down, after a move-leader
  // step: had leadership come back to it since (an election it won), it
  // moves again, or the write would cost the election the step avoided.
  base::Result<std::string> keep_leadership_away(MemberStep which) {
    if (!plan_.has(MemberStep::MoveLeader)) return std::string();
    // Break-glass deletes an EtcdMember its finalizer keeps: remove-etcd takes the member down there.
    if (plan_.mode == Mode::BreakGlass && which == MemberStep::DeleteMember) return std::string();
    auto statuses = voter_statuses();
    if (!statuses) return std::move(statuses).error();
    if (plan_handover(*statuses, plan_.id).kind == Handover::Kind::NotLeader) return std::string();
    auto moved = move_leader();
    if (!moved) return std::move(moved).error();
    return "leadership had come back to the target: " + moved->detail + "; ";
  }

  base::Result<Answer> clear_id() {
    auto m = get_opt(op::resources::etcdmembers, plan_.member);
    if (!m) return std::move(m).error();
    if (m->is_null() || base::string_at(*m, "/status/memberID").empty()) return Answer::already("no memberID");
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdmembers, ns_, plan_.member, kube::PatchType::Merge,
                         guarded(*m, {{"status", {{"memberID", ""}}}}), po);
    if (!r) return std::move(r).error();
    return Answer::did("memberID cleared");
  }

  base::Result<Answer> delete_member() {
    auto m = get_opt(op::resources::etcdmembers, plan_.member);
    if (!m) return std::move(m).error();
    if (m->is_null() || m->contains("/metadata/deletionTimestamp"_json_pointer)) return Answer::already("already deleting");
    auto away = keep_leadership_away(MemberStep::DeleteMember);
    if (!away) return std::move(away).error();
    // Newer operators deny the delete without their consent annotation
    // (docs/operator-contract.md#deleting-an-etcdmember); set it first, on
    // the object just read.
    if (!op::allows_deletion(*m)) {
      auto p = kube_.patch(op::resources::etcdmembers, ns_, plan_.member, kube::PatchType::Merge,
                           guarded(*m, op::allow_deletion_patch()));
      if (!p) return std::move(p).error();
    }
    kube::DeleteOptions d;
    d.precondition_uid = base::string_at(*m, "/metadata/uid");
    auto r = kube_.remove(op::resources::etcdmembers, ns_, plan_.member, d);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    return Answer::did(*away + "deleted");
  }

  base::Result<Answer> remove_etcd() {
    auto l = members_now();
    if (!l) return std::move(l).error();
    std::string url = plan_.peer_url;
    if (find_member(*l, plan_.id, plan_.member, url) == nullptr) return Answer::already("etcd does not list it");
    const auto* e = find_member(*l, plan_.id, plan_.member, url);
    const std::uint64_t id = e->id;
    auto away = keep_leadership_away(MemberStep::RemoveEtcd);
    if (!away) return std::move(away).error();
    auto r = retry_while_unhealthy([&] { return env_.session->etcd->member_remove(id); }, o_.timeout, o_.progress);
    if (!r) {
      if (r.error().reason != etcd::reason::kMemberNotFound) return std::move(r).error();
      auto again = members_now();
      if (!again) return std::move(again).error();
      if (find_member(*again, id, plan_.member, url) != nullptr) return std::move(r).error();
      // This step saw it listed and asked for its removal: "not found" is
      // the answer of another member to a retry of that same request (the
      // first went to the removed member itself, which stopped before it
      // answered). The removal is this step's.
      return Answer::did(*away + "removed " + etcd::format_member_id(id) + " (confirmed by a fresh member list)");
    }
    return Answer::did(*away + "removed " + etcd::format_member_id(id));
  }

  base::Result<Answer> release() { return release_finalizer(env_, plan_.member, plan_.id, plan_.peer_url); }

  // --force-delete-pod. Only after etcd stopped listing the member (with the
  // operator active its finalizer does the removal): a Pod force-deleted
  // before that could leave a voter whose process nobody owns.
  base::Result<Answer> force_delete_pod() {
    auto pod = get_opt(kube::resources::pods, plan_.member);
    if (!pod) return std::move(pod).error();
    if (pod->is_null()) return Answer::already("Pod gone");
    auto gone = poll("waiting until etcd no longer lists " + plan_.member, [&]() -> base::Result<std::optional<Answer>> {
      auto l = members_now();
      if (!l) return std::move(l).error();
      if (find_member(*l, plan_.id, plan_.member, plan_.peer_url) != nullptr) return std::optional<Answer>();
      return std::optional<Answer>(Answer{});
    });
    if (!gone) return std::move(gone).error();
    const std::string node = base::string_at(*pod, "/spec/nodeName");
    if (!node.empty()) {
      auto n = kube_.get(kube::resources::nodes, "", node);
      if (!n && !kube::is_not_found(n.error())) return std::move(n).error();
      if (n && kube::condition_true(*n, "Ready")) return Answer::already("Node " + node + " is Ready: its kubelet finishes the deletion");
    }
    kube::DeleteOptions d;
    d.precondition_uid = base::string_at(*pod, "/metadata/uid");
    d.grace_period_seconds = 0;
    auto r = kube_.remove(kube::resources::pods, ns_, plan_.member, d);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    return Answer::did(node.empty() ? "Pod deleted" : "Pod deleted (Node " + node + " NotReady or gone)");
  }

  // --- roll (docs/break-glass-design.md#quorum) -----------------------------------------
  // Before the delete: the EtcdMember names the Pod being replaced, so a run
  // killed after the delete is finished by a re-run without a second one.
  base::Result<Answer> mark_roll() {
    auto m = member(plan_.member);
    if (!m) return std::move(m).error();
    const std::string mark = op::annotation(*m, op::kAnnRollingPodUid);
    if (mark == plan_.pod_uid) return Answer::already("already marked");
    if (!mark.empty()) {
      return base::make_error(base::ErrorKind::Refused, "EtcdMember " + plan_.member + " is marked as rolling Pod " + mark +
                                                           " meanwhile", {}, "re-run to finish that roll");
    }
    json patch = {{"metadata", {{"annotations", {{std::string(op::kAnnRollingPodUid), plan_.pod_uid}}}}}};
    auto r = kube_.patch(op::resources::etcdmembers, ns_, plan_.member, kube::PatchType::Merge, guarded(*m, patch));
    if (!r) return std::move(r).error();
    return Answer::did("rolling Pod " + plan_.pod_uid);
  }

  // Done: only our own mark goes; another value is not this roll's.
  base::Result<Answer> unmark_roll() {
    auto m = member(plan_.member);
    if (!m) return std::move(m).error();
    if (op::annotation(*m, op::kAnnRollingPodUid) != plan_.pod_uid) return Answer::already("not marked");
    json patch = {{"metadata", {{"annotations", {{std::string(op::kAnnRollingPodUid), nullptr}}}}}};
    auto r = kube_.patch(op::resources::etcdmembers, ns_, plan_.member, kube::PatchType::Merge, guarded(*m, patch));
    if (!r) return std::move(r).error();
    return Answer::did("annotation removed");
  }

  base::Result<Answer> delete_pod() {
    auto pod = get_opt(kube::resources::pods, plan_.member);
    if (!pod) return std::move(pod).error();
    if (pod->is_null()) return Answer::already("no Pod");
    if (base::string_at(*pod, "/metadata/uid") != plan_.pod_uid) return Answer::already("already a new Pod");
    if (pod->contains("/metadata/deletionTimestamp"_json_pointer)) return Answer::already("already deleting");
    auto away = keep_leadership_away(MemberStep::DeletePod);
    if (!away) return std::move(away).error();
    kube::DeleteOptions d;
    d.precondition_uid = plan_.pod_uid;
    auto r = kube_.remove(kube::resources::pods, ns_, plan_.member, d);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    return Answer::did(*away + "Pod " + plan_.pod_uid + " deleted");
  }

  base::Result<Answer> wait_pod() {
    return poll("waiting for the operator to recreate pod " + plan_.member + " and for it to be Ready",
                [&]() -> base::Result<std::optional<Answer>> {
                  auto pod = get_opt(kube::resources::pods, plan_.member);
                  if (!pod) return std::move(pod).error();
                  if (pod->is_null() || base::string_at(*pod, "/metadata/uid") == plan_.pod_uid ||
                      pod->contains("/metadata/deletionTimestamp"_json_pointer) || !kube::condition_true(*pod, "Ready")) {
                    return std::optional<Answer>();
                  }
                  return std::optional<Answer>(Answer::did("Pod " + base::string_at(*pod, "/metadata/uid")));
                });
  }

  // Back: the new Pod's etcd answers Status as the same member. It is dialled
  // with a client of its own: the session's knows the members' old Pod IPs
  // only, and the new Pod has an IP of its own.
  base::Result<Answer> rejoin() {
    return poll("waiting for " + plan_.member + " to answer again", [&]() -> base::Result<std::optional<Answer>> {
      auto cl = cluster();
      if (!cl) return std::move(cl).error();
      auto ms = items(op::resources::etcdmembers);
      if (!ms) return std::move(ms).error();
      auto pods = items(kube::resources::pods);
      if (!pods) return std::move(pods).error();
      for (const auto& t : member_targets(*cl, *ms, *pods)) {
        if (t.name != plan_.member || t.endpoint.empty()) continue;
        auto c = etcd::Client::create(member_config(env_.session->target, t));
        if (!c) return std::move(c).error();
        auto st = (*c)->status(t.endpoint);
        if (st && st->header.member_id == plan_.id) {
          return std::optional<Answer>(Answer::did("member " + etcd::format_member_id(plan_.id) + " answers"));
        }
      }
      return std::optional<Answer>();
    });
  }

  base::Result<Answer> count() {
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    std::string detail;
    if (req_.scale_down) {
      const long long want = plan_.replicas - 1;
      if (base::int_at(*cl, "/spec/replicas", 3) != want) {
        auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                             guarded(*cl, {{"spec", {{"replicas", want}}}}));
        if (!r) return std::move(r).error();
        cl = std::move(r);
      }
      json status = json::object();
      if (base::int_at(*cl, "/status/observed/replicas") != want) {
        status["observed"] = {{"replicas", want}};
        status["progressDeadline"] = nullptr;
      }
      if (plan_.was_ready) status["readyMembers"] = std::max(0LL, base::int_at(*cl, "/status/readyMembers") - 1);
      if (!status.empty()) {
        kube::PatchOptions po;
        po.subresource = "status";
        auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                             guarded(*cl, {{"status", status}}), po);
        if (!r) return std::move(r).error();
      }
      auto p = pdb();
      if (!p) return std::move(p).error();
      return Answer::did("replicas " + std::to_string(want));
    }
    if (plan_.was_ready) {
      kube::PatchOptions po;
      po.subresource = "status";
      long long ready = std::max(0LL, base::int_at(*cl, "/status/readyMembers") - 1);
      auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                           guarded(*cl, {{"status", {{"readyMembers", ready}}}}), po);
      if (!r) return std::move(r).error();
      detail = "readyMembers " + std::to_string(ready);
    }
    return Answer::did(detail);
  }

  // --- operator-mediated waits -------------------------------------------------
  // The operator's own progress, read afresh on each poll: a member count
  // alone would call a learner, or a member the operator has not promoted or
  // marked yet, done.
  base::Result<Answer> wait_added() {
    start_operator_wait();
    return poll("waiting for the operator to add a member", [&]() -> base::Result<std::optional<Answer>> {
      auto st = read_state(env_);
      if (!st) return std::move(st).error();
      auto v = judge_settled(*st, plan_.want, plan_.before);
      if (v.done && v.member.empty()) v = {false, "no EtcdMember is new since the plan", {}, {}, 0};
      if (!v.done) {
        stands_ = v.text;
        cause_ = v.cause;
        return std::optional<Answer>();
      }
      added_ = v.member;
      added_id_ = v.id;
      return std::optional<Answer>(Answer::did(v.text));
    });
  }

  base::Result<Answer> wait_removed() {
    start_operator_wait();
    return poll("waiting for the operator to remove " + plan_.member, [&]() -> base::Result<std::optional<Answer>> {
      auto st = read_state(env_);
      if (!st) return std::move(st).error();
      auto v = judge_removed(*st, plan_.member, plan_.id, plan_.peer_url);
      if (!v.done) {
        stands_ = v.text;
        cause_ = v.cause;
        return std::optional<Answer>();
      }
      return std::optional<Answer>(Answer::did(v.text));
    });
  }

  base::Result<Answer> wait_filled() {
    start_operator_wait();
    return poll("waiting for the operator to fill the gap", [&]() -> base::Result<std::optional<Answer>> {
      auto st = read_state(env_);
      if (!st) return std::move(st).error();
      auto v = judge_settled(*st, plan_.want, plan_.before);
      if (!v.done) {
        stands_ = v.text;
        cause_ = v.cause;
        return std::optional<Answer>();
      }
      if (!v.member.empty()) {
        added_ = v.member;
        added_id_ = v.id;
      }
      return std::optional<Answer>(Answer::did(v.text));
    });
  }

  void start_operator_wait() {
    if (!operator_wait_) operator_wait_ = Clock::now() + o_.timeout;
    timeout_hint_ = operator_hint();
  }

  // The change was handed to the operator, which goes on after a timeout: a
  // re-run of the same add would ask for one member more.
  std::string operator_hint() const {
    return "the operator goes on by itself; `kubectl etcd status -c " + c_ + "` shows where it stands";
  }

  MemberEnv& env_;
  kube::Client& kube_;
  const MemberPlan& plan_;
  const MemberRequest& req_;
  const ExecOptions& o_;
  std::string ns_, c_;
  std::string member_;
  std::string added_;
  std::uint64_t id_ = 0;
  std::uint64_t added_id_ = 0;
  std::vector<etcd::Member> add_members_;
  ExecReport report_;
  std::string stands_;        // a poll's last word on where the wait stands
  std::string cause_;         // and why, when known
  std::string timeout_hint_;  // the hint of a wait's timeout, when not "re-run"
  std::optional<Clock::time_point> operator_wait_;  // the end of the operator-mediated waits' budget


 public:
  void set_added(const std::string& m) { added_ = m; }
};

}  // namespace

base::Result<Answer> release_finalizer(MemberEnv& env, const std::string& member, std::uint64_t id,
                                       const std::string& peer_url) {
  kube::Client& kube = *env.kube;
  const std::string& ns = env.session->target.ns;
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
  auto l = env.session->etcd->member_list(true);
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

base::Result<LiveState> read_state(MemberEnv& env, bool nodes) {
  Session& s = *env.session;
  kube::Client& kube = *env.kube;
  const std::string& ns = s.target.ns;
  const std::string& c = s.target.cluster;
  LiveState st;
  auto cl = kube.get(op::resources::etcdclusters, ns, c);
  if (!cl) return std::move(cl).error();
  st.cluster = std::move(cl.value());
  auto ms = cluster_items(kube, op::resources::etcdmembers, ns, c);
  if (!ms) return std::move(ms).error();
  st.members = std::move(ms.value());
  auto pods = cluster_items(kube, kube::resources::pods, ns, c);
  if (!pods) return std::move(pods).error();
  st.pods = std::move(pods.value());
  auto pdb = kube.get(kube::resources::poddisruptionbudgets, ns, c);
  if (pdb) st.pdb = std::move(pdb.value());
  else if (!kube::is_not_found(pdb.error())) return std::move(pdb).error();
  auto svc = kube.get(kube::resources::services, ns, c);
  if (!svc && !kube::is_not_found(svc.error())) return std::move(svc).error();
  st.headless_service = static_cast<bool>(svc);
  for (const auto& name : member_secrets(st.cluster)) {
    auto sec = kube.get(kube::resources::secrets, ns, name);
    if (!sec && kube::is_not_found(sec.error())) st.missing_secrets.push_back(name);
    if (!sec) continue;
    auto uncovered = uncovered_certificate(*sec, c, ns);
    if (!uncovered.empty()) st.uncovered_certs.push_back(uncovered);
  }
  auto l = s.etcd->member_list(true);
  if (l) st.etcd = std::move(l.value());
  else st.etcd_error = l.error().one_line();
  std::vector<std::string> eps;
  std::vector<std::uint64_t> ids;  // of eps
  std::vector<std::pair<std::uint64_t, MemberTarget>> fresh;
  const auto& known = s.target.config.endpoints;
  auto targets = member_targets(st.cluster, st.members, st.pods);
  for (const auto& e : st.etcd.members) {
    std::string ep;
    const MemberTarget* target = nullptr;
    for (const auto& t : targets) {
      if (t.name == e.name && !e.name.empty() && !t.endpoint.empty()) {
        ep = t.endpoint;
        target = &t;
      }
    }
    // A Pod newer than the session (one the operator made during a wait) has
    // an address the session's client neither dials nor knows the TLS name
    // of: that member gets a client of its own, as `member_config` builds it.
    if (target != nullptr && std::find(known.begin(), known.end(), ep) == known.end()) {
      fresh.emplace_back(e.id, *target);
      continue;
    }
    if (ep.empty() && !e.client_urls.empty()) ep = e.client_urls.front();
    if (ep.empty()) {
      st.dial_errors[e.id] = "no endpoint to dial";
      continue;
    }
    eps.push_back(ep);
    ids.push_back(e.id);
  }
  auto answered = [&st](const etcd::StatusInfo& r) {
    st.healthy.insert(r.header.member_id);
    if (r.leader != 0) st.leader = r.leader;
  };
  const auto answers = s.etcd->status_all(eps, s.member_deadline());
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i].result) answered(*answers[i].result);
    else if (i < ids.size()) st.dial_errors[ids[i]] = answers[i].result.error().one_line();
  }
  for (const auto& [id, t] : fresh) {
    auto c = etcd::Client::create(member_config(s.target, t));
    if (!c) {
      st.dial_errors[id] = c.error().one_line();
      continue;
    }
    auto r = (*c)->status(t.endpoint, s.member_deadline());
    if (r) answered(*r);
    else st.dial_errors[id] = r.error().one_line();
  }
  if (nodes) {
    for (const auto& p : st.pods) {
      const std::string node = base::string_at(p, "/spec/nodeName");
      if (node.empty() || st.node_ready.count(node)) continue;
      auto n = kube.get(kube::resources::nodes, "", node);
      if (!n && !kube::is_not_found(n.error())) return std::move(n).error();
      st.node_ready[node] = n && kube::condition_true(*n, "Ready");
    }
  }
  st.operator_state = operator_state(kube, env.operator_deployment.empty() ? std::string(op::kDefaultNewController)
                                                                           : env.operator_deployment,
                                     ns);
  return st;
}

base::Result<ExecReport> execute(MemberEnv& env, const MemberPlan& plan, const MemberRequest& request,
                                const ExecOptions& options) {
  Runner r(env, plan, request, options);
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
