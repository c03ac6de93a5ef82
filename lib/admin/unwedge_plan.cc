#include "admin/unwedge_plan.h"

#include <algorithm>
#include <sstream>

#include "admin/consistency.h"
#include "admin/member_object.h"
#include "admin/target.h"
#include "base/json_at.h"
#include "base/rfc3339.h"
#include "etcd/member_id.h"
#include "operator/names.h"

namespace admin {

using json = nlohmann::json;

namespace {

bool condition(const json& o, const std::string& type, const std::string& status, const std::string& reason = {}) {
  for (const auto& c : base::array_at(o, "/status/conditions")) {
    if (base::string_at(c, "/type") == type) return base::string_at(c, "/status") == status && (reason.empty() || base::string_at(c, "/reason") == reason);
  }
  return false;
}
// The EtcdMember an etcd member stands for: by stored ID, else by name or URL.
const json* owner_of(const LiveState& s, const etcd::Member& e) {
  for (const auto& m : s.members) {
    if (stored_id(m) == e.id) return &m;
  }
  for (const auto& m : s.members) {
    if (match_member(s.cluster, m, {e}) != nullptr) return &m;
  }
  return nullptr;
}

void terminating_ghosts(const LiveState& s, UnwedgePlan& p) {
  for (const auto& m : s.members) {
    if (!deleting(m)) continue;
    const std::string name = name_of(m);
    const std::string url = peer_url(s.cluster, m);
    // etcd still lists it: the finalizer's MemberRemove has work to do.
    if (find_etcd(s, stored_id(m), name, url) != nullptr) continue;
    if (stored_id(m) != 0 || !base::string_at(m, "/status/memberID").empty()) {
      p.fixes.push_back({FixId::ClearId, "terminating-ghost", name, stored_id(m),
                         "status merge patch memberID \"\" on EtcdMember " + name +
                             " (Terminating; etcd lists neither its ID, name nor URL): its finalizer then releases it",
                         url});
    }
    if (!p.operator_active && has_member_finalizer(m)) {
      p.fixes.push_back({FixId::Release, "terminating-ghost", name, 0,
                         "confirm absence by a linearizable MemberList, then drop the member-cleanup finalizer of " + name +
                             " (the operator is not active to do it)",
                         url});
    }
  }
}

void orphan_learners(const LiveState& s, UnwedgePlan& p) {
  for (const auto& e : s.etcd.members) {
    if (!e.is_learner) continue;
    const json* m = owner_of(s, e);
    std::string why;
    if (m == nullptr) {
      why = "no EtcdMember matches its URL";
    } else if (!deleting(*m) && !awaiting_initial_cluster(*m) && s.pod(name_of(*m)) == nullptr) {
      why = "its EtcdMember " + name_of(*m) + " is not pending and has no Pod";
    } else {
      continue;
    }
    p.fixes.push_back({FixId::RemoveLearner, "orphan-learner", m != nullptr ? name_of(*m) : std::string(), e.id,
                       "MemberRemove learner " + etcd::format_member_id(e.id) + " (" + why +
                           "); learners never count for quorum",
                       {}});
  }
}

void deadline(const LiveState& s, const UnwedgeRequest& r, std::chrono::system_clock::time_point now,
              UnwedgePlan& p) {
  if (condition(s.cluster, "Available", "False", "DeadlineExceeded") && spec_matches_observed(s.cluster)) {
    p.advice.push_back({"deadline-exceeded", {},
                        "Available=False/DeadlineExceeded with spec equal to status.observed: the operator does "
                        "nothing until the spec changes; edit spec to set the target again"});
  }
  if (!r.expire_deadline) return;
  const std::string d = base::string_at(s.cluster, "/status/progressDeadline");
  auto t = base::parse_rfc3339(d);
  if (t && *t > now) {
    p.fixes.push_back({FixId::ExpireDeadline, "wedged-reconcile", {}, 0,
                       "status merge patch progressDeadline " + d +
                           " to a past time: the operator ends the reconcile at its next pass (DeadlineExceeded, "
                           "or RetryAfterDeadline when spec differs from observed)",
                       {}});
  }
}

// The cluster waits for a member that does not come back: the operator
// adopts no spec change and adds no member while one is not Ready, and
// replaces a dead one by itself only after its container restarted five
// times (docs/operator-contract.md, "Membership changes").
void dead_members(const LiveState& s, UnwedgePlan& p) {
  long long running = 0;
  for (const auto& m : s.members) {
    if (!deleting(m) && !dormant(m)) ++running;
  }
  const json* observed = base::find_at(s.cluster, "/status/observed/replicas");
  const bool change_waits = !spec_matches_observed(s.cluster) || observed == nullptr || *observed != json(running);
  for (const auto& m : s.members) {
    if (deleting(m) || dormant(m) || awaiting_initial_cluster(m)) continue;
    const json* pod = s.pod(name_of(m));
    if (pod == nullptr) continue;
    const std::string name = name_of(m);
    const std::uint64_t id = stored_id(m);
    const bool ready = condition(*pod, "Ready", "True") && (id == 0 || s.healthy.count(id) > 0);
    if (ready) continue;
    const std::string node = base::string_at(*pod, "/spec/nodeName");
    auto it = s.node_ready.find(node);
    if (!node.empty() && it != s.node_ready.end() && !it->second) {
      p.advice.push_back({"dead-member", name,
                          "EtcdMember " + name + " is not Ready and its Node " + node +
                              " is NotReady or gone: `kubectl etcd member replace " + name + "`"});
      continue;
    }
    // On a Ready Node its kubelet restarts the container, so only when a
    // change waits for it, and only a member that was a voter (it has a
    // memberID etcd lists as one) and now does not answer: a joining learner
    // is not Ready for a while by design.
    if (!change_waits) continue;
    const auto* e = id == 0 ? nullptr : find_etcd(s, id, {}, {});
    if (e == nullptr || e->is_learner || s.healthy.count(id) > 0) continue;
    const bool memory = base::string_at(m, "/spec/storage/medium") == "Memory";
    p.advice.push_back({"dead-member", name,
                        "EtcdMember " + name + " (" + etcd::format_member_id(id) +
                            ") is not Ready and does not answer, on a Ready Node; the operator adopts no spec "
                            "change and adds no member until it is back. If its container does not come back: " +
                            (memory ? "`kubectl etcd member replace " + name + "` (its data is in memory)"
                                    : "`kubectl etcd member roll " + name +
                                          "` recreates its Pod with the same PVC and member ID, or `kubectl etcd "
                                          "member replace " + name + "` gives a new member")});
  }
}

}  // namespace

bool spec_matches_observed(const json& cluster) {
  if (!cluster.contains("/status/observed"_json_pointer)) return false;
  const json& spec = base::object_at(cluster, "/spec");
  const json& observed = base::object_at(cluster, "/status/observed");
  auto empty = [](const json& v) { return v.is_null() || (v.is_object() && v.empty()) || (v.is_array() && v.empty()); };
  for (const char* k : {"replicas", "version", "storage", "resources", "affinity", "topologySpreadConstraints",
                        "additionalMetadata", "options", "imagePullSecrets"}) {
    json a = spec.contains(k) ? spec[k] : json();
    json b = observed.contains(k) ? observed[k] : json();
    if (std::string(k) == "replicas" && a.is_null()) a = 3;
    if (empty(a) && empty(b)) continue;
    if (a != b) return false;
  }
  return true;
}

UnwedgePlan plan_unwedge(const LiveState& s, const UnwedgeRequest& r, std::chrono::system_clock::time_point now) {
  UnwedgePlan p;
  p.operator_active = s.operator_state && s.operator_state->active;
  if (!s.etcd_error.empty()) {
    p.refusals.push_back("no quorum of voters answers a linearizable MemberList (" + s.etcd_error +
                         "): Terminating members and learners cannot be judged");
  } else {
    terminating_ghosts(s, p);
    orphan_learners(s, p);
  }
  deadline(s, r, now, p);
  dead_members(s, p);
  return p;
}

const char* fix_name(FixId id) {
  switch (id) {
    case FixId::ClearId: return "clear-id";
    case FixId::Release: return "release";
    case FixId::RemoveLearner: return "remove-learner";
    case FixId::ExpireDeadline: return "expire-deadline";
  }
  return "unknown";
}

nlohmann::ordered_json unwedge_document(const UnwedgePlan& p) {
  nlohmann::ordered_json d;
  d["operatorActive"] = p.operator_active;
  d["fixes"] = nlohmann::ordered_json::array();
  for (const auto& f : p.fixes) {
    d["fixes"].push_back({{"fix", fix_name(f.id)}, {"symptom", f.symptom}, {"member", f.member},
                          {"id", f.etcd_id == 0 ? std::string() : etcd::format_member_id(f.etcd_id)},
                          {"action", f.text}});
  }
  d["advice"] = nlohmann::ordered_json::array();
  for (const auto& a : p.advice) d["advice"].push_back({{"symptom", a.symptom}, {"member", a.member}, {"action", a.text}});
  d["refusals"] = p.refusals;
  return d;
}

std::string unwedge_text(const UnwedgePlan& p) {
  std::ostringstream out;
  if (p.fixes.empty() && p.advice.empty() && p.refusals.empty()) return "nothing to unwedge\n";
  out << "plan: member unwedge (operator " << (p.operator_active ? "active" : "not active") << ")\n";
  int i = 1;
  for (const auto& f : p.fixes) out << "  " << i++ << ". " << fix_name(f.id) << " [" << f.symptom << "]: " << f.text << "\n";
  for (const auto& a : p.advice) out << "  not fixed here [" << a.symptom << "]: " << a.text << "\n";
  for (const auto& r : p.refusals) out << "  refused: " << r << "\n";
  return out.str();
}

}  // namespace admin
