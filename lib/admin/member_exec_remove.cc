// The steps of member remove and replace (docs/break-glass-design.md): the
// leader handover, the EtcdMember's ID and deletion, the etcd removal, the
// forced Pod deletion, the counts, and the waits for an operator-mediated
// removal and its gap fill.
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

// --- removal ---------------------------------------------------------------------
// Client URLs of the current members, from their Pods or etcd's own list.
std::vector<std::pair<std::uint64_t, std::string>> Runner::endpoints(const etcd::MemberList& l) {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  std::vector<MemberTarget> targets;
  auto cl = cluster();
  auto ms = cl ? items(op::resources::etcdmembers) : base::Result<json>(cl.error());
  auto pods = ms ? items(kube::resources::pods) : base::Result<json>(ms.error());
  if (pods) targets = member_targets(*cl, *ms, *pods);
  for (const auto& e : l.members) {
    std::string ep;
    for (const auto& t : targets) {
      if (t.name == e.name && !t.endpoint.empty()) ep = t.endpoint;
    }
    if (ep.empty() && !e.client_urls.empty()) ep = e.client_urls.front();
    if (!ep.empty()) out.emplace_back(e.id, ep);
  }
  return out;
}

// One round of Status answers of the members etcd lists now.
base::Result<std::vector<VoterStatus>> Runner::voter_statuses() {
  auto l = members_now();
  if (!l) return std::move(l).error();
  const auto eps = endpoints(*l);
  std::vector<std::string> urls;
  for (const auto& [id, ep] : eps) urls.push_back(ep);
  // Concurrently, under one deadline: a member that is down costs one timeout, not one each.
  const auto answers = etcd_.status_all(urls);
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
base::Result<Answer> Runner::move_leader() {
  auto statuses = voter_statuses();
  if (!statuses) return std::move(statuses).error();
  const Handover h = plan_handover(*statuses, plan_.id);
  if (h.kind == Handover::Kind::NotLeader) return Answer::already("the target does not lead (" + h.why + ")");
  const std::string who = plan_.member.empty() ? etcd::format_member_id(plan_.id) : plan_.member;
  if (h.kind == Handover::Kind::Cannot) {
    return base::make_error(base::ErrorKind::Failed, "cannot move leadership away from " + who + ": " + h.why, {},
                           "re-run once `kubectl etcd health -c " + c_ + "` shows a leader and a healthy voter");
  }
  auto r = etcd_.move_leader(h.leader_endpoint, h.to);
  // No answer is not a refusal: the leader may have handed over before the
  // connection dropped; the transferee's own Status below decides
  // (docs/server-faults.md#lost-answers-to-etcds-writes).
  if (!r && !etcd::is_answer_lost(r.error())) return std::move(r).error();
  std::string to_ep;
  for (const auto& v : *statuses) {
    if (v.id == h.to) to_ep = v.endpoint;
  }
  const auto until = Clock::now() + env_.session->target.config.call_timeout;
  for (;;) {
    auto st = etcd_.status(to_ep);
    if (st && st->is_leader()) return Answer::did("leader now " + etcd::format_member_id(h.to));
    if (Clock::now() > until) {
      if (!r) return std::move(r).error();
      return base::make_error(base::ErrorKind::Failed, "MoveLeader was accepted but " + etcd::format_member_id(h.to) +
                                                         " does not lead yet", {}, "re-run to resume");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Right before the write that takes the target down, after a move-leader
// step: had leadership come back to it since (an election it won), it
// moves again, or the write would cost the election the step avoided.
base::Result<std::string> Runner::keep_leadership_away(MemberStep which) {
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

base::Result<Answer> Runner::clear_id() {
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

base::Result<Answer> Runner::delete_member() {
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

base::Result<Answer> Runner::remove_etcd() {
  auto l = members_now();
  if (!l) return std::move(l).error();
  std::string url = plan_.peer_url;
  if (find_member(*l, plan_.id, plan_.member, url) == nullptr) return Answer::already("etcd does not list it");
  const auto* e = find_member(*l, plan_.id, plan_.member, url);
  const std::uint64_t id = e->id;
  auto away = keep_leadership_away(MemberStep::RemoveEtcd);
  if (!away) return std::move(away).error();
  auto r = retry_while_unhealthy([&] { return etcd_.member_remove(id); }, o_.timeout, o_.progress);
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

// --force-delete-pod. Only after etcd stopped listing the member (with the
// operator active its finalizer does the removal): a Pod force-deleted
// before that could leave a voter whose process nobody owns.
base::Result<Answer> Runner::force_delete_pod() {
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

// The counts are the plan's, absolute (docs/step-engine.md#relative-effects):
// readyMembers one below what the plan read, not one below what is there
// now, so a second run after a lost answer writes nothing.
base::Result<Answer> Runner::count() {
  auto cl = cluster();
  if (!cl) return std::move(cl).error();
  bool wrote = false;
  const long long ready = std::max(0LL, plan_.ready_members - 1);
  const bool set_ready = plan_.was_ready && base::int_at(*cl, "/status/readyMembers", 0) != ready;
  if (req_.scale_down) {
    const long long want = plan_.replicas - 1;
    if (base::int_at(*cl, "/spec/replicas", 3) != want) {
      auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                           guarded(*cl, {{"spec", {{"replicas", want}}}}));
      if (!r) return std::move(r).error();
      cl = std::move(r);
      wrote = true;
    }
    json status = json::object();
    if (base::int_at(*cl, "/status/observed/replicas") != want) {
      status["observed"] = {{"replicas", want}};
      status["progressDeadline"] = nullptr;
    }
    if (set_ready) status["readyMembers"] = ready;
    if (!status.empty()) {
      kube::PatchOptions po;
      po.subresource = "status";
      auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                           guarded(*cl, {{"status", status}}), po);
      if (!r) return std::move(r).error();
      wrote = true;
    }
    auto p = pdb();
    if (!p) return std::move(p).error();
    return Answer::did_if(wrote || p->acted(), "replicas " + std::to_string(want));
  }
  if (!set_ready) return Answer::already(plan_.was_ready ? "readyMembers already " + std::to_string(ready) : std::string());
  kube::PatchOptions po;
  po.subresource = "status";
  auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                       guarded(*cl, {{"status", {{"readyMembers", ready}}}}), po);
  if (!r) return std::move(r).error();
  return Answer::did("readyMembers " + std::to_string(ready));
}

base::Result<Answer> Runner::wait_removed() {
  start_operator_wait();
  return watch("waiting for the operator to remove " + plan_.member, [&]() -> base::Result<std::optional<Answer>> {
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

base::Result<Answer> Runner::wait_filled() {
  start_operator_wait();
  return watch("waiting for the operator to fill the gap", [&]() -> base::Result<std::optional<Answer>> {
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

}  // namespace admin::exec_detail
