// The planning of member add and promote (docs/break-glass-design.md).
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

void add_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p, bool gap_only) {
  const std::string c = name_of(s.cluster);
  // Operator-mediated: an earlier run's scale is in flight when spec.replicas
  // is the count its annotation asked for and the operator is still adding
  // that member. That run's answer may have been lost: this one resumes it
  // (the scale step finds it done) instead of asking for one member more
  // (docs/step-engine.md#relative-effects).
  if (p.mode == Mode::Operator && !gap_only) {
    const auto own = op::scale_target(s.cluster);
    // Not adopted yet, or a member being added (pending, or a learner).
    const bool adding = f.observed < f.spec_replicas || !f.pending_members.empty() || !f.learners.empty();
    if (own && own->replicas == f.spec_replicas && adding) {
      p.resume = true;
      p.replicas = f.observed;
      p.want = own->replicas;
      p.before = own->before;
      step(p, MemberStep::Scale, "spec.replicas is already " + std::to_string(own->replicas) +
                                     ", as an earlier `member add` asked; the operator is adding that member");
      if (r.wait) {
        step(p, MemberStep::WaitAdded, "wait until the operator added the member, promoted it and reports " +
                                           std::to_string(p.want) + " Ready voters");
      }
      return;
    }
  }
  // Resume: a pending EtcdMember, or a learner that maps to an EtcdMember.
  const json* resume = nullptr;
  for (const auto* m : f.pending_members) {
    if (resume != nullptr) {
      p.refusals.push_back("more than one pending EtcdMember");
      return;
    }
    resume = m;
  }
  for (const auto* l : f.learners) {
    const json* m = member_for(s, *l);
    if (m == nullptr) {
      const std::string id = etcd::format_member_id(l->id);
      p.refusals.push_back("orphan learner " + id + " (no EtcdMember): `member remove " + id + "` first");
      return;
    }
    if (resume == nullptr) resume = m;
    else if (name_of(*resume) != name_of(*m)) p.refusals.push_back("more than one learner or pending member");
  }
  // Promoted, but the voter flag not written yet (a stop right after the
  // promotion): finish with the flag, the label and the PDB.
  if (resume == nullptr && p.mode == Mode::BreakGlass && !gap_only) {
    for (const auto* m : f.active) {
      const etcd::Member* e = find_etcd(s, stored_id(*m), name_of(*m), peer_url(s.cluster, *m));
      if (e == nullptr || e->is_learner || base::bool_at(*m, "/status/isVoter")) continue;
      p.resume = true;
      p.added = p.member = name_of(*m);
      p.id = e->id;
      p.kind = TargetKind::Member;
      p.replicas = f.observed;
      step(p, MemberStep::MarkVoter, "status isVoter true, Pod role label voter");
      step(p, MemberStep::Pdb, "patch the PodDisruptionBudget " + c + " minAvailable, if present");
      return;
    }
  }
  if (!f.terminating.empty() && !gap_only) {
    p.refusals.push_back("EtcdMember " + name_of(*f.terminating.front()) + " is Terminating: a removal is in flight");
  }
  if (resume == nullptr && !r.force && !s.uncovered_certs.empty()) {
    const std::string ns = base::string_at(s.cluster, "/metadata/namespace");
    for (const auto& cert : s.uncovered_certs) {
      p.refusals.push_back("the certificate of " + cert + " does not cover " + op::future_member_dns(c, ns) +
                           ", the kind of name the operator gives a new member, so TLS to it would fail: add the DNS name *." +
                           op::service_dns(c, ns) + " to it (or issue it with cert-manager), or pass --force");
    }
  }
  if (p.mode == Mode::Operator) {
    if (resume != nullptr) {
      p.refusals.push_back("EtcdMember " + name_of(*resume) + " is being added: the operator completes it");
      return;
    }
    if (f.spec_replicas != f.observed && !r.force) {
      p.refusals.push_back("spec.replicas " + std::to_string(f.spec_replicas) + " differs from status.observed.replicas " +
                           std::to_string(f.observed) + ": a change is in flight (--force to add anyway)");
    }
    if (static_cast<long long>(f.running) != f.observed && !r.force) {
      p.refusals.push_back(std::to_string(f.running) + " running EtcdMembers for status.observed.replicas " +
                           std::to_string(f.observed) + ": the operator is still converging (--force to add anyway)");
    }
    p.replicas = f.observed;
    p.want = f.spec_replicas + 1;
    // The count asked for is absolute (docs/step-engine.md#relative-effects).
    step(p, MemberStep::Scale, "merge patch spec.replicas " + std::to_string(f.spec_replicas) + " -> " +
                         std::to_string(f.spec_replicas + 1) + " (and the " + std::string(op::kAnnScaleTarget) + " annotation); the operator adds a learner and promotes it");
    if (r.wait) {
      step(p, MemberStep::WaitAdded, "wait until the operator added the member, promoted it and reports " +
                                std::to_string(p.want) + " Ready voters");
    }
    return;
  }
  p.replicas = f.observed;
  if (resume != nullptr) {
    p.resume = true;
    p.added = name_of(*resume);
    if (p.op == MemberOp::Add) {
      p.member = p.added;
      p.peer_url = peer_url(s.cluster, *resume);
      if (const auto* e = find_etcd(s, stored_id(*resume), p.member, p.peer_url)) p.id = e->id;
    }
  } else {
    if (f.spec_replicas != f.observed && !r.force) {
      p.refusals.push_back("spec.replicas " + std::to_string(f.spec_replicas) + " differs from status.observed.replicas " +
                           std::to_string(f.observed) + ": a change is in flight (--force to add anyway)");
    }
    if (f.healthy_voters < f.voters && !gap_only) {
      p.refusals.push_back(std::to_string(f.voters - f.healthy_voters) +
                           " voter(s) do not answer: remove the dead member first (`member replace`)");
    }
    if (!s.headless_service) p.refusals.push_back("the headless Service " + c + " does not exist");
    for (const auto& sec : s.missing_secrets) p.refusals.push_back("Secret " + sec + " (mounted by members) does not exist");
  }
  const bool grow = !p.resume && !gap_only && static_cast<long long>(f.running) >= f.observed;
  if (grow) {
    step(p, MemberStep::Grow, "merge patch spec.replicas and status.observed.replicas " + std::to_string(f.observed) + " -> " +
                        std::to_string(f.observed + 1) + " (progressDeadline null)");
    if ((f.observed + 1) % 2 == 0) p.warnings.push_back("the cluster will have an even number of members (" + std::to_string(f.observed + 1) + ")");
  }
  const std::string who = p.added.empty() ? "a new EtcdMember (generateName " + c + "-)" : "EtcdMember " + p.added;
  if (p.added.empty()) step(p, MemberStep::CreateMember, "create " + who + " with initialCluster \"\" and the member-cleanup finalizer");
  step(p, MemberStep::Register, "MemberAddAsLearner with its peer URL (skipped when etcd lists it)");
  step(p, MemberStep::Wire, "merge patch spec.initialCluster from the add response and the component label");
  step(p, MemberStep::Render, "create its PVC and Pod as the operator renders them (annotated rendered-by)");
  step(p, MemberStep::Record, "status merge patch podName, podUID, pvcName, replicas, selector");
  step(p, MemberStep::Ready, "wait until the Pod is Ready and etcd lists the member, then status memberID");
  if (!r.no_promote) {
    step(p, MemberStep::Promote, "MemberPromote, retried while the learner catches up");
    step(p, MemberStep::MarkVoter, "status isVoter true, Pod role label voter");
    step(p, MemberStep::Pdb, "patch the PodDisruptionBudget " + c + " minAvailable, if present");
  }
}

void promote_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p) {
  const etcd::Member* e = nullptr;
  if (auto id = parse_member_id(r.target)) e = find_etcd(s, *id, {}, {});
  const json* m = nullptr;
  for (const auto& x : s.members) {
    if (name_of(x) == r.target) m = &x;
  }
  if (e == nullptr && m != nullptr) e = find_etcd(s, stored_id(*m), name_of(*m), peer_url(s.cluster, *m));
  if (e == nullptr) {
    for (const auto& x : s.etcd.members) {
      if (x.name == r.target) e = &x;
    }
  }
  if (e == nullptr) {
    p.not_found = m != nullptr ? "EtcdMember " + r.target + " is not an etcd member" : "no member " + r.target;
    return;
  }
  if (m == nullptr) m = member_for(s, *e);
  p.id = e->id;
  if (m == nullptr) {
    const std::string id = etcd::format_member_id(e->id);
    p.refusals.push_back("learner " + id + " has no EtcdMember: an orphan learner is never promoted; `member remove " + id + "`");
    return;
  }
  p.member = name_of(*m);
  p.kind = TargetKind::Member;
  if (!e->is_learner) {
    p.voter = true;
    if (p.mode == Mode::BreakGlass && !base::bool_at(*m, "/status/isVoter")) {
      step(p, MemberStep::MarkVoter, "status isVoter true, Pod role label voter");
      step(p, MemberStep::Pdb, "patch the PodDisruptionBudget if present");
    }
    return;
  }
  if (deleting(*m) || dormant(*m)) p.refusals.push_back("EtcdMember " + p.member + " is deleting or dormant");
  if (base::string_at(*m, "/spec/initialCluster").empty()) {
    p.refusals.push_back("EtcdMember " + p.member + " is pending (no initialCluster)");
  }
  const json* pod = s.pod(p.member);
  if (pod == nullptr || !has_condition(*pod, "Ready")) p.refusals.push_back("the Pod of " + p.member + " is not Ready");
  if (f.healthy_voters < f.voters && !r.force) {
    p.refusals.push_back(std::to_string(f.voters - f.healthy_voters) +
                         " voter(s) do not answer and promotion raises the quorum size (--force to promote anyway)");
  }
  step(p, MemberStep::Promote, "MemberPromote " + etcd::format_member_id(e->id) + ", retried while the learner catches up");
  if (p.mode == Mode::BreakGlass) {
    step(p, MemberStep::MarkVoter, "status isVoter true (and memberID), Pod role label voter");
    step(p, MemberStep::Pdb, "patch the PodDisruptionBudget if present");
  }
}

}  // namespace admin::member_planning
