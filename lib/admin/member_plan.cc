// The planning of member surgery: the facts, the shared checks and steps,
// and plan_member(), which hands each operation to its planner
// (admin/member_facts.h); what the operator would write for a member is
// rendered in member_render.cc.
#include "admin/member_plan.h"

#include <algorithm>
#include <sstream>

#include "admin/consistency.h"
#include "admin/member_facts.h"
#include "admin/member_object.h"
#include "admin/target.h"
#include "base/json_at.h"
#include "etcd/member_id.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/scale_target.h"

namespace admin {

using json = nlohmann::json;

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

namespace member_planning {

bool pending(const json& o) { return !deleting(o) && awaiting_initial_cluster(o); }
bool has_condition(const json& o, const std::string& type) {
  for (const auto& c : base::array_at(o, "/status/conditions")) {
    if (base::string_at(c, "/type") == type) return base::string_at(c, "/status") == "True";
  }
  return false;
}


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

}  // namespace member_planning

using member_planning::add_steps;
using member_planning::common_checks;
using member_planning::Facts;
using member_planning::facts_of;
using member_planning::mode_checks;
using member_planning::promote_steps;
using member_planning::remove_steps;
using member_planning::roll_steps;

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
