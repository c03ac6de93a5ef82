// The steps of member roll (docs/break-glass-design.md#quorum): the mark
// naming the Pod replaced, its deletion, the wait for the operator's new Pod
// and for the member to answer again, and the mark's removal.
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

// --- roll (docs/break-glass-design.md#quorum) -----------------------------------------
// Before the delete: the EtcdMember names the Pod being replaced, so a run
// killed after the delete is finished by a re-run without a second one.
base::Result<Answer> Runner::mark_roll() {
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
base::Result<Answer> Runner::unmark_roll() {
  auto m = member(plan_.member);
  if (!m) return std::move(m).error();
  if (op::annotation(*m, op::kAnnRollingPodUid) != plan_.pod_uid) return Answer::already("not marked");
  json patch = {{"metadata", {{"annotations", {{std::string(op::kAnnRollingPodUid), nullptr}}}}}};
  auto r = kube_.patch(op::resources::etcdmembers, ns_, plan_.member, kube::PatchType::Merge, guarded(*m, patch));
  if (!r) return std::move(r).error();
  return Answer::did("annotation removed");
}

base::Result<Answer> Runner::delete_pod() {
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

base::Result<Answer> Runner::wait_pod() {
  return watch("waiting for the operator to recreate pod " + plan_.member + " and for it to be Ready",
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
base::Result<Answer> Runner::rejoin() {
  return watch("waiting for " + plan_.member + " to answer again", [&]() -> base::Result<std::optional<Answer>> {
    auto cl = cluster();
    if (!cl) return std::move(cl).error();
    auto ms = items(op::resources::etcdmembers);
    if (!ms) return std::move(ms).error();
    auto pods = items(kube::resources::pods);
    if (!pods) return std::move(pods).error();
    for (const auto& t : member_targets(*cl, *ms, *pods)) {
      if (t.name != plan_.member || t.endpoint.empty()) continue;
      auto st = etcd_.status_of(t);
      if (st && st->header.member_id == plan_.id) {
        return std::optional<Answer>(Answer::did("member " + etcd::format_member_id(plan_.id) + " answers"));
      }
    }
    return std::optional<Answer>();
  });
}

}  // namespace admin::exec_detail
