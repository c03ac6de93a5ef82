// The planning of member remove and replace (docs/break-glass-design.md).
#include "admin/member_facts.h"

#include <algorithm>

#include "admin/consistency.h"
#include "admin/member_object.h"
#include "admin/target.h"
#include "base/json_at.h"
#include "etcd/member_id.h"
#include "operator/scale_target.h"

namespace admin::member_planning {

void remove_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p, bool replace) {
  const json* m = nullptr;
  for (const auto& x : s.members) {
    if (name_of(x) == r.target) m = &x;
  }
  const etcd::Member* e = nullptr;
  auto id = m == nullptr ? parse_member_id(r.target) : std::nullopt;
  if (m == nullptr) {
    for (const auto& x : s.etcd.members) {
      if (x.name == r.target || (id && x.id == *id)) e = &x;
    }
    if (e != nullptr) m = member_for(s, *e);
    if (m == nullptr && id) {
      for (const auto& x : s.members) {
        if (stored_id(x) == *id) m = &x;
      }
    }
  }
  if (m != nullptr) {
    p.member = name_of(*m);
    p.peer_url = peer_url(s.cluster, *m);
    e = find_etcd(s, stored_id(*m), p.member, p.peer_url);
    p.kind = e != nullptr ? TargetKind::Member : TargetKind::Ghost;
    p.was_ready = has_condition(*m, "Ready");
    p.ready_members = base::int_at(s.cluster, "/status/readyMembers", 0);
    p.resume = deleting(*m);
  } else if (e != nullptr) {
    p.kind = TargetKind::Orphan;
  } else {
    // Gone: a re-run after the release. Finish the count of a shrink, or
    // the gap fill of a replace. A member an earlier replace was adding
    // (pending, or a learner) fills no gap yet: that run may have stopped
    // on a lost answer right after creating it, and this one resumes it
    // (docs/server-faults.md#lost-answers).
    std::size_t adding = f.pending_members.size();
    for (const auto* l : f.learners) {
      const json* lm = member_for(s, *l);
      if (lm != nullptr && !pending(*lm)) ++adding;
    }
    const long long filled = static_cast<long long>(f.running - std::min(adding, f.running));
    const bool gap = filled < f.observed && f.spec_replicas == f.observed;
    if (gap && (r.scale_down || replace) && p.mode == Mode::BreakGlass) {
      p.kind = TargetKind::Gone;
      p.resume = true;
      p.replicas = f.observed;
      if (replace) {
        add_steps(s, f, r, p, true);
      } else {
        step(p, MemberStep::Count, "merge patch spec.replicas and status.observed.replicas " + std::to_string(f.observed) +
                             " -> " + std::to_string(f.observed - 1) + ", the PDB");
      }
      return;
    }
    const json* pod = s.pod(r.target);
    if (r.force_delete_pod && pod != nullptr && !replace) {
      // The EtcdMember was released but its Pod is stuck Terminating.
      p.kind = TargetKind::Gone;
      p.resume = true;
      p.member = r.target;
      force_delete_step(s, p);
      return;
    }
    p.not_found = "no EtcdMember or etcd member " + r.target;
    return;
  }
  if (e != nullptr) {
    p.id = e->id;
    p.voter = !e->is_learner;
  } else if (m != nullptr) {
    p.id = stored_id(*m);
  }
  p.replicas = f.observed;
  if (m != nullptr && dormant(*m)) p.refusals.push_back("EtcdMember " + p.member + " is dormant");
  in_flight_checks(s, f, p, p.member);
  if (e != nullptr) {
    if (s.etcd.members.size() <= 1) p.refusals.push_back("it is the last member: pausing is spec.replicas 0");
    if (p.voter) {
      std::size_t left = f.healthy_voters - (s.healthy.count(e->id) ? 1 : 0);
      if (left < quorum(f.voters - 1)) {
        p.refusals.push_back("removing voter " + etcd::format_member_id(e->id) + " would leave " + std::to_string(left) +
                             " healthy voter(s), fewer than the quorum " + std::to_string(quorum(f.voters - 1)) +
                             " of the " + std::to_string(f.voters - 1) + " left");
      }
    }
  }
  if (r.scale_down && (p.mode == Mode::Operator || replace)) {
    p.refusals.push_back(replace ? "--scale-down does not go with replace"
                                 : "a targeted shrink is break-glass only (the operator always drops the newest); pass --break-glass");
  }
  if (r.scale_down && f.observed <= 1) p.refusals.push_back("scaling to 0 by removal: pausing is spec.replicas 0");
  const std::string target = p.member.empty() ? "etcd member " + etcd::format_member_id(p.id) : "EtcdMember " + p.member;
  if (r.force_delete_pod && (p.kind == TargetKind::Orphan || replace)) {
    p.refusals.push_back(replace ? "--force-delete-pod goes with `member remove`"
                                 : "--force-delete-pod: etcd member " + etcd::format_member_id(p.id) +
                                       " has no EtcdMember and no Pod");
  }
  if (p.kind == TargetKind::Orphan) {
    step(p, MemberStep::RemoveEtcd,
         "MemberRemove " + etcd::format_member_id(p.id) + " (" + (p.voter ? "stray voter" : "orphan learner") + ")");
    return;
  }
  if (p.mode == Mode::Operator) {
    if (p.kind == TargetKind::Ghost) step(p, MemberStep::ClearId, "status merge patch memberID \"\" on " + target);
    if (e != nullptr) handover_step(s, r, p, target, *e, "the operator's MemberRemove of a leader costs an election");
    if (m != nullptr && !deleting(*m)) {
      step(p, MemberStep::DeleteMember, "annotate " + target + " allow-deletion, delete it (uid precondition); the operator's finalizer removes it from etcd and fills the gap");
    }
    if (r.force_delete_pod) force_delete_step(s, p);
    if (r.wait) {
      // The operator's scale-up fills the gap the removal leaves (spec.replicas stays).
      p.want = f.spec_replicas;
      step(p, MemberStep::WaitRemoved, "wait until etcd no longer lists " + target + " and the EtcdMember is gone");
      step(p, MemberStep::WaitFilled, "wait until the operator filled the gap: " + std::to_string(p.want) +
                                 " Ready voters, none a learner");
    }
    return;
  }
  if (e != nullptr && p.voter && e->id == s.leader) {
    if (!r.move_leader) p.refusals.push_back(target + " leads: leadership must move first (drop --no-move-leader)");
    step(p, MemberStep::MoveLeader, "move leadership from " + target + " to a healthy voter");
  }
  const bool finalizer = m != nullptr && has_member_finalizer(*m);
  step(p, MemberStep::ClearId, "status merge patch memberID \"\" on " + target);
  if (!finalizer && e != nullptr) {
    step(p, MemberStep::RemoveEtcd, "MemberRemove " + etcd::format_member_id(p.id) + " (no finalizer holds the object)");
  }
  step(p, MemberStep::DeleteMember, "annotate " + target + " allow-deletion, delete it (uid precondition; the finalizer keeps it)");
  if (finalizer && e != nullptr) step(p, MemberStep::RemoveEtcd, "MemberRemove " + etcd::format_member_id(p.id));
  step(p, MemberStep::Release, "confirm absence by a linearizable MemberList, then drop the member-cleanup finalizer");
  if (r.force_delete_pod) force_delete_step(s, p);
  if (r.scale_down) {
    step(p, MemberStep::Count, "merge patch spec.replicas and status.observed.replicas " + std::to_string(f.observed) + " -> " +
                         std::to_string(f.observed - 1) + ", the PDB");
  } else if (p.was_ready) {
    step(p, MemberStep::Count, "decrement status.readyMembers; the count stays for the operator to fill");
  }
  if (replace) {
    MemberRequest add = r;
    add_steps(s, f, add, p, true);
  }
}

}  // namespace admin::member_planning
