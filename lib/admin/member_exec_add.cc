// The steps of member add and promote (docs/break-glass-design.md): the
// count asked of the operator or grown by hand, the EtcdMember, the learner,
// its wiring, Pod and status, the promotion, the voter marks, the PDB, and
// the wait for an operator-mediated add.
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

namespace admin::exec_detail {

// The count the plan asked for, absolute: run again (a lost answer, a
// re-run) it finds spec.replicas there and writes nothing, where "one
// more than now" would ask for a member per run. The annotation, written
// in the same patch, lets a re-planned run tell its own request in flight
// (docs/step-engine.md#relative-effects).
base::Result<Answer> Runner::scale() {
  auto cl = cluster();
  if (!cl) return std::move(cl).error();
  const long long want = plan_.want;
  if (base::int_at(*cl, "/spec/replicas", 3) == want) {
    return Answer::already("spec.replicas already " + std::to_string(want));
  }
  const std::string mark = op::scale_target_value({want, plan_.before});
  auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                       guarded(*cl, {{"metadata", {{"annotations", {{std::string(op::kAnnScaleTarget), mark}}}}},
                                     {"spec", {{"replicas", want}}}}));
  if (!r) return std::move(r).error();
  return Answer::did("spec.replicas " + std::to_string(want));
}

base::Result<Answer> Runner::grow() {
  auto cl = cluster();
  if (!cl) return std::move(cl).error();
  const long long want = plan_.replicas + 1;
  long long spec = base::int_at(*cl, "/spec/replicas", 3);
  bool wrote = false;
  if (spec != want) {
    auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                         guarded(*cl, {{"spec", {{"replicas", want}}}}));
    if (!r) return std::move(r).error();
    cl = std::move(r);
    wrote = true;
  }
  if (base::int_at(*cl, "/status/observed/replicas") != want) {
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                         guarded(*cl, {{"status", {{"observed", {{"replicas", want}}}, {"progressDeadline", nullptr}}}}),
                         po);
    if (!r) return std::move(r).error();
    wrote = true;
  }
  return Answer::did_if(wrote, "replicas " + std::to_string(want));
}

base::Result<Answer> Runner::create_member() {
  if (!added_.empty()) return Answer::already(added_);
  auto cl = cluster();
  if (!cl) return std::move(cl).error();
  auto r = kube_.create(op::resources::etcdmembers, ns_, new_member(*cl));
  if (!r) return std::move(r).error();
  added_ = name_of(*r);
  progress("created EtcdMember " + added_);
  return Answer::did(added_);
}

base::Result<Answer> Runner::register_learner() {
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
  auto r = retry_while_unhealthy([&] { return etcd_.member_add_learner(url); }, o_.timeout, o_.progress);
  if (!r) {
    // Refused for a member that exists: an earlier MemberAdd whose answer was
    // lost, retried by the client on another member, may have registered it
    // (etcd derives the ID from the peer URLs and the second, so a retry
    // within it collides on the ID, a later one on the URL); the member list
    // decides (docs/server-faults.md#lost-answers-to-etcds-writes).
    if (r.error().reason != etcd::reason::kPeerURLExists && r.error().reason != etcd::reason::kMemberExists) {
      return std::move(r).error();
    }
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

base::Result<Answer> Runner::wire() {
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

base::Result<Answer> Runner::render() {
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
      if (!r && !kube::is_already_exists(r.error())) return std::move(r).error();
    }
  }
  auto r = kube_.create(kube::resources::pods, ns_, render_pod(*cl, *m, repo, env_.rendered_by));
  if (!r && !kube::is_already_exists(r.error())) return std::move(r).error();
  return Answer::did("image " + repo);
}

base::Result<Answer> Runner::record() {
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
    const json* have = base::find_at(*m, "/status/" + base::pointer_token(k));
    if (have == nullptr || *have != v) same = false;
  }
  if (same) return Answer::already("already recorded");
  kube::PatchOptions po;
  po.subresource = "status";
  auto r = kube_.patch(op::resources::etcdmembers, ns_, adding(), kube::PatchType::Merge,
                       guarded(*m, {{"status", status}}), po);
  if (!r) return std::move(r).error();
  return Answer::did("pod " + base::string_at(*pod, "/metadata/uid"));
}

base::Result<Answer> Runner::ready() {
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

base::Result<std::uint64_t> Runner::promoting_id() {
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

base::Result<Answer> Runner::promote() {
  auto id = promoting_id();
  if (!id) return std::move(id).error();
  // Read first: a voter already is done without a MemberPromote for etcd to refuse.
  auto now = members_now();
  if (!now) return std::move(now).error();
  if (const auto* e = find_member(*now, *id, {}, {}); e != nullptr && !e->is_learner) {
    return Answer::already("already a voter");
  }
  auto r = poll("learner " + promoting() + " not yet in sync", [&]() -> base::Result<std::optional<Answer>> {
    auto p = etcd_.member_promote(*id);
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

base::Result<Answer> Runner::mark_voter() {
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
  bool wrote = false;
  if (!base::bool_at(*m, "/status/isVoter") || base::string_at(*m, "/status/memberID").empty()) {
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdmembers, ns_, promoting(), kube::PatchType::Merge,
                         guarded(*m, {{"status", {{"isVoter", true}, {"memberID", etcd::format_member_id(*id)}}}}),
                         po);
    if (!r) return std::move(r).error();
    detail = "isVoter true";
    wrote = true;
  }
  auto pod = get_opt(kube::resources::pods, promoting());
  if (!pod) return std::move(pod).error();
  if (!pod->is_null() && op::label(*pod, op::kLabelRole) != op::kRoleVoter) {
    auto r = kube_.patch(kube::resources::pods, ns_, promoting(), kube::PatchType::Merge,
                         guarded(*pod, {{"metadata", {{"labels", {{std::string(op::kLabelRole), std::string(op::kRoleVoter)}}}}}}));
    if (!r) return std::move(r).error();
    detail += ", role label";
    wrote = true;
  }
  return Answer::did_if(wrote, detail);
}

base::Result<Answer> Runner::pdb() {
  auto p = get_opt(kube::resources::poddisruptionbudgets, c_);
  if (!p) return std::move(p).error();
  if (p->is_null()) return Answer::already("no PodDisruptionBudget");
  auto cl = cluster();
  if (!cl) return std::move(cl).error();
  auto ms = items(op::resources::etcdmembers);
  if (!ms) return std::move(ms).error();
  long long voters = 0;
  for (const auto& m : *ms) {
    if (base::find_at(m, "/metadata/deletionTimestamp") == nullptr && !base::bool_at(m, "/spec/dormant") &&
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

// --- operator-mediated waits -------------------------------------------------
// The operator's own progress, read afresh on each poll: a member count
// alone would call a learner, or a member the operator has not promoted or
// marked yet, done.
base::Result<Answer> Runner::wait_added() {
  start_operator_wait();
  return watch("waiting for the operator to add a member", [&]() -> base::Result<std::optional<Answer>> {
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

}  // namespace admin::exec_detail
