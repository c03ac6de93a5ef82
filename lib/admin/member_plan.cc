// Over 600 lines on purpose: the refusals and steps of add, promote,
// remove, replace and roll come from one set of facts about the cluster and
// share their checks (quorum, changes in flight, the operator's mode); what
// the operator would write for a member is rendered in member_render.cc.
#include "admin/member_plan.h"

#include <algorithm>
#include <sstream>

#include "admin/consistency.h"
#include "admin/member_object.h"
#include "admin/target.h"
#include "base/json_at.h"
#include "etcd/member_id.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/scale_target.h"

namespace admin {

using json = nlohmann::json;

namespace {

bool pending(const json& o) { return !deleting(o) && awaiting_initial_cluster(o); }
bool has_condition(const json& o, const std::string& type) {
  for (const auto& c : base::array_at(o, "/status/conditions")) {
    if (base::string_at(c, "/type") == type) return base::string_at(c, "/status") == "True";
  }
  return false;
}

}  // namespace

const json* LiveState::pod(const std::string& name) const {
  for (const auto& p : pods) {
    if (name_of(p) == name) return &p;
  }
  return nullptr;
}

const char* op_name(MemberOp op) {
  switch (op) {
    case MemberOp::Add: return "add";
    case MemberOp::Promote: return "promote";
    case MemberOp::Remove: return "remove";
    case MemberOp::Replace: return "replace";
    case MemberOp::Roll: return "roll";
  }
  return "?";
}

bool MemberPlan::has(MemberStep step) const {
  return std::any_of(steps.begin(), steps.end(), [&](const PlanStep& s) { return s.id == step; });
}

std::size_t quorum(std::size_t voters) { return voters / 2 + 1; }

long long pdb_min_available(long long voters, long long observed) { return std::max(voters, observed) / 2 + 1; }

std::optional<std::uint64_t> parse_member_id(const std::string& text) {
  auto id = etcd::parse_member_id(text);
  if (!id) return std::nullopt;
  return *id;
}

const etcd::Member* find_member(const etcd::MemberList& l, std::uint64_t id, const std::string& name,
                                const std::string& url) {
  for (const auto& m : l.members) {
    if (id != 0 && m.id == id) return &m;
  }
  for (const auto& m : l.members) {
    if (!name.empty() && m.name == name) return &m;
    if (!url.empty() && std::find(m.peer_urls.begin(), m.peer_urls.end(), url) != m.peer_urls.end()) return &m;
  }
  return nullptr;
}

const etcd::Member* find_etcd(const LiveState& s, std::uint64_t id, const std::string& name, const std::string& url) {
  return find_member(s.etcd, id, name, url);
}

// --- planning ---------------------------------------------------------------------

namespace {

struct Facts {
  std::vector<const json*> active, terminating, pending_members;
  std::size_t running = 0;
  bool any_dormant = false;
  long long spec_replicas = 0, observed = 0;
  std::size_t voters = 0, healthy_voters = 0;
  std::vector<const etcd::Member*> learners;
};

Facts facts_of(const LiveState& s) {
  Facts f;
  for (const auto& m : s.members) {
    if (deleting(m)) {
      f.terminating.push_back(&m);
      continue;
    }
    f.active.push_back(&m);
    if (dormant(m)) f.any_dormant = true;
    else ++f.running;
    if (pending(m)) f.pending_members.push_back(&m);
  }
  f.spec_replicas = base::int_at(s.cluster, "/spec/replicas", 3);
  f.observed = base::int_at(s.cluster, "/status/observed/replicas");
  for (const auto& m : s.etcd.members) {
    if (m.is_learner) {
      f.learners.push_back(&m);
      continue;
    }
    ++f.voters;
    if (s.healthy.count(m.id)) ++f.healthy_voters;
  }
  return f;
}

// The EtcdMember an etcd member stands for.
const json* member_for(const LiveState& s, const etcd::Member& e) {
  for (const auto& m : s.members) {
    if (stored_id(m) == e.id) return &m;
  }
  for (const auto& m : s.members) {
    const etcd::Member* x = match_member(s.cluster, m, {e});
    if (x != nullptr) return &m;
  }
  return nullptr;
}

void step(MemberPlan& p, MemberStep id, std::string text) { p.steps.push_back({id, std::move(text)}); }

void common_checks(const LiveState& s, const Facts& f, MemberPlan& p) {
  const std::string c = name_of(s.cluster);
  if (deleting(s.cluster)) p.refusals.push_back("EtcdCluster " + c + " is being deleted");
  if (base::string_at(s.cluster, "/status/clusterID").empty()) {
    p.refusals.push_back("EtcdCluster " + c + " has no status.clusterID: the cluster never formed");
  }
  if (f.observed <= 0) p.refusals.push_back("status.observed.replicas is 0: the cluster is paused");
  if (f.any_dormant) p.refusals.push_back("a member is dormant: resume the cluster first (spec.replicas)");
  if (!s.etcd_error.empty()) {
    p.refusals.push_back("no quorum of voters answers a linearizable MemberList: " + s.etcd_error);
  }
  for (const auto& m : s.etcd.members) {
    if (m.peer_urls.size() != 1) {
      p.refusals.push_back("etcd member " + etcd::format_member_id(m.id) + " has " + std::to_string(m.peer_urls.size()) +
                           " peer URLs; only members with exactly one are handled");
    }
  }
}

void mode_checks(const LiveState& s, const MemberRequest& r, MemberPlan& p) {
  const bool active = s.operator_state && s.operator_state->active;
  const std::string why = s.operator_state ? s.operator_state->reason : std::string();
  if (r.break_glass) {
    p.mode = Mode::BreakGlass;
    if (active && !r.stop_operator && !r.skip_operator_check) {
      p.refusals.push_back("the operator is active (" + why +
                           "): break-glass needs --stop-operator (scales it to 0 and back) or --skip-operator-check");
    }
    p.stop_operator = active && r.stop_operator;
    return;
  }
  p.mode = Mode::Operator;
  if (!active) {
    p.refusals.push_back("the operator is not active" + (why.empty() ? std::string() : " (" + why + ")") +
                         ": nothing would complete an operator-mediated change; pass --break-glass");
  }
}

// Another change in flight: a pending or Terminating EtcdMember, a learner
// that was never Ready (I7), an orphan learner. `except` is the target.
void in_flight_checks(const LiveState& s, const Facts& f, MemberPlan& p, const std::string& except) {
  for (const auto* m : f.pending_members) {
    if (name_of(*m) != except) p.refusals.push_back("EtcdMember " + name_of(*m) + " is pending: an add is in flight (re-run `member add` to finish it)");
  }
  for (const auto* m : f.terminating) {
    if (name_of(*m) != except) p.refusals.push_back("EtcdMember " + name_of(*m) + " is Terminating: a removal is in flight");
  }
  for (const auto* l : f.learners) {
    const json* m = member_for(s, *l);
    if (m == nullptr) {
      const std::string id = etcd::format_member_id(l->id);
      if (l->id != p.id) p.refusals.push_back("orphan learner " + id + " (no EtcdMember): `member remove " + id + "` first");
    } else if (name_of(*m) != except && stored_id(*m) == 0) {
      p.refusals.push_back("learner " + name_of(*m) + " has not been Ready yet: an add is in flight (re-run `member add`)");
    }
  }
}

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

// Operator-mediated: the step right before the write that takes the target
// down (its EtcdMember's delete, its Pod's delete), for every voter, since
// the leader may change between this plan and that write; it decides when
// it runs (docs/break-glass-design.md#leader-handover).
void handover_step(const LiveState& s, const MemberRequest& r, MemberPlan& p, const std::string& target,
                   const etcd::Member& e, const std::string& cost) {
  if (e.is_learner) return;
  const bool leads = e.id == s.leader;
  if (!r.move_leader) {
    if (leads) p.refusals.push_back(target + " leads: leadership must move first (drop --no-move-leader)");
    return;
  }
  step(p, MemberStep::MoveLeader,
       leads ? "move leadership from " + target + " (it leads) to a healthy voter; " + cost
             : "if " + target + " leads by then, move leadership to a healthy voter first (it does not lead now)");
}

// --force-delete-pod: only a Pod whose Node is NotReady
// or gone; on a Ready Node the kubelet finishes the deletion itself.
void force_delete_step(const LiveState& s, MemberPlan& p) {
  const json* pod = s.pod(p.member);
  const std::string node = pod != nullptr ? base::string_at(*pod, "/spec/nodeName") : std::string();
  auto it = s.node_ready.find(node);
  if (!node.empty() && it != s.node_ready.end() && it->second) {
    p.refusals.push_back("Pod " + p.member + " is on Node " + node +
                         ", which is Ready: its kubelet finishes the deletion; drop --force-delete-pod");
  }
  step(p, MemberStep::ForceDeletePod, "once etcd no longer lists the member, delete Pod " + p.member +
                                  " with grace 0 (uid precondition) if its Node is NotReady or gone");
}

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

}  // namespace

MemberPlan plan_member(const LiveState& s, const MemberRequest& r) {
  MemberPlan p;
  p.op = r.op;
  for (const auto& m : s.members) p.before.push_back(name_of(m));
  Facts f = facts_of(s);
  if (r.op == MemberOp::Roll) {
    common_checks(s, f, p);
    roll_steps(s, f, r, p);
    if (!p.not_found.empty()) p.steps.clear();
    return p;
  }
  mode_checks(s, r, p);
  common_checks(s, f, p);
  switch (r.op) {
    case MemberOp::Add:
      p.kind = TargetKind::New;
      add_steps(s, f, r, p, false);
      if (!p.member.empty()) p.kind = TargetKind::Member;
      break;
    case MemberOp::Promote:
      promote_steps(s, f, r, p);
      break;
    case MemberOp::Roll:
      break;
    case MemberOp::Remove:
    case MemberOp::Replace: {
      // An orphan learner or a ghost's ID clearing is safe alongside the operator.
      remove_steps(s, f, r, p, r.op == MemberOp::Replace);
      break;
    }
  }
  if (p.kind == TargetKind::Orphan && p.mode == Mode::Operator && r.op == MemberOp::Remove) {
    // An etcd member without EtcdMember (docs/break-glass-design.md#quorum): safe even with the operator active.
    p.refusals.erase(std::remove_if(p.refusals.begin(), p.refusals.end(),
                                    [](const std::string& x) { return x.rfind("the operator is not active", 0) == 0; }),
                     p.refusals.end());
  }
  if (r.op == MemberOp::Replace && p.kind == TargetKind::Orphan) {
    p.refusals.push_back("replace needs an EtcdMember; an etcd member without one is removed with `member remove`");
  }
  if (!p.not_found.empty()) p.steps.clear();
  return p;
}

nlohmann::ordered_json plan_document(const MemberPlan& p) {
  static const char* kinds[] = {"new", "member", "orphan", "ghost", "gone"};
  nlohmann::ordered_json d;
  d["operation"] = op_name(p.op);
  d["mode"] = p.mode == Mode::BreakGlass ? "break-glass" : "operator";
  d["member"] = p.member;
  d["id"] = p.id == 0 ? std::string() : etcd::format_member_id(p.id);
  d["kind"] = kinds[static_cast<int>(p.kind)];
  d["resume"] = p.resume;
  d["stopOperator"] = p.stop_operator;
  d["steps"] = nlohmann::ordered_json::array();
  for (const auto& s : p.steps) d["steps"].push_back({{"step", step_name(s.id)}, {"action", s.text}});
  d["refusals"] = p.refusals;
  d["warnings"] = p.warnings;
  return d;
}

std::string plan_text(const MemberPlan& p) {
  std::ostringstream out;
  auto doc = plan_document(p);
  out << "plan: member " << op_name(p.op) << " (" << doc["mode"].get<std::string>() << ")";
  if (!p.member.empty()) out << " " << p.member;
  if (p.id != 0) out << " " << etcd::format_member_id(p.id);
  if (p.resume) out << ", resuming an earlier run";
  out << "\n";
  if (p.stop_operator) out << "  stop the operator (replicas to 0), restore it afterwards\n";
  int i = 1;
  for (const auto& s : p.steps) out << "  " << i++ << ". " << step_name(s.id) << ": " << s.text << "\n";
  for (const auto& w : p.warnings) out << "  warning: " << w << "\n";
  for (const auto& r : p.refusals) out << "  refused: " << r << "\n";
  return out.str();
}

}  // namespace admin
