// The planning of member roll (docs/break-glass-design.md).
#include "admin/member_facts.h"

#include "admin/consistency.h"
#include "admin/member_object.h"
#include "admin/target.h"
#include "base/json_at.h"
#include "etcd/member_id.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/scale_target.h"

namespace admin::member_planning {

// docs/rules.md#member-pod-and-pvc: the operator recreates the Pod from its own template; only a
// PVC brings the data and the member ID back.
void roll_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p) {
  p.mode = Mode::Operator;
  const json* m = nullptr;
  for (const auto& x : s.members) {
    if (name_of(x) == r.target) m = &x;
  }
  if (m == nullptr) {
    if (auto id = parse_member_id(r.target)) {
      if (const auto* e = find_etcd(s, *id, {}, {})) m = member_for(s, *e);
    }
  }
  if (m == nullptr) {
    p.not_found = "no EtcdMember " + r.target;
    return;
  }
  p.member = name_of(*m);
  p.kind = TargetKind::Member;
  p.peer_url = peer_url(s.cluster, *m);
  p.replicas = f.observed;
  if (in_memory(*m)) {
    p.refusals.push_back("EtcdMember " + p.member +
                         " keeps its data in memory (storage.medium Memory): a new Pod starts empty and the member "
                         "is lost; such members are never rolled");
  }
  if (!(s.operator_state && s.operator_state->active)) {
    p.refusals.push_back("the operator is not active" +
                         (s.operator_state ? " (" + s.operator_state->reason + ")" : std::string()) +
                         ": nothing would recreate the Pod of " + p.member);
  }
  if (deleting(*m) || dormant(*m)) p.refusals.push_back("EtcdMember " + p.member + " is deleting or dormant");
  if (pending(*m)) p.refusals.push_back("EtcdMember " + p.member + " is pending: an add is in flight");
  const etcd::Member* e = find_etcd(s, stored_id(*m), p.member, p.peer_url);
  if (e == nullptr) {
    p.refusals.push_back("etcd does not list " + p.member + ": see `kubectl etcd member unwedge`");
  } else {
    p.id = e->id;
    p.voter = !e->is_learner;
    in_flight_checks(s, f, p, p.member);
    if (p.voter) {
      // While its Pod restarts the member is down: the rest must keep quorum.
      std::size_t left = f.healthy_voters - (s.healthy.count(e->id) ? 1 : 0);
      if (left < quorum(f.voters)) {
        p.refusals.push_back("while " + p.member + " restarts " + std::to_string(left) +
                             " healthy voter(s) are left, fewer than the quorum " + std::to_string(quorum(f.voters)));
      }
    }
  }
  const json* pod = s.pod(p.member);
  const std::string now = pod != nullptr ? base::string_at(*pod, "/metadata/uid") : std::string();
  const std::string cost = "a leader whose Pod is deleted costs an election";
  // An earlier run marked the Pod it replaces before deleting it: only that
  // UID is ever deleted, so a re-run does not roll the operator's new Pod.
  const std::string marked = op::annotation(*m, op::kAnnRollingPodUid);
  const std::string pvc = op::member_pvc(p.member);
  if (!marked.empty()) {
    p.resume = true;
    p.pod_uid = marked;
    if (now == marked) {
      if (e != nullptr) handover_step(s, r, p, "EtcdMember " + p.member, *e, cost);
      step(p, MemberStep::DeletePod, "delete Pod " + p.member + " " + marked + " (marked by an earlier run, uid precondition); "
                            "the operator recreates it with PVC " + pvc);
    }
  } else if (pod != nullptr) {
    p.pod_uid = now;
    step(p, MemberStep::MarkRoll, "annotate EtcdMember " + p.member + " " + std::string(op::kAnnRollingPodUid) + "=" + now +
                             " (resourceVersion guard): a re-run then knows which Pod it replaces");
    if (e != nullptr) handover_step(s, r, p, "EtcdMember " + p.member, *e, cost);
    step(p, MemberStep::DeletePod, "delete Pod " + p.member + " (uid precondition); the operator recreates it with PVC " + pvc);
  } else {
    step(p, MemberStep::DeletePod, "no Pod " + p.member + " now: the operator creates it");
  }
  step(p, MemberStep::WaitPod, "wait until the new Pod " + p.member + " is Ready" +
                          (p.resume && now != marked ? " (an earlier run deleted Pod " + marked + "; not deleted again)"
                                                     : std::string()));
  step(p, MemberStep::Rejoin, "wait until " + p.member + " answers Status again as the same member");
  if (!p.pod_uid.empty()) step(p, MemberStep::UnmarkRoll, "remove the annotation " + std::string(op::kAnnRollingPodUid));
}

}  // namespace admin::member_planning
