#include "admin/consistency.h"

#include <ctime>
#include <map>
#include <set>

#include "admin/pod_restarts.h"
#include "admin/target.h"
#include "base/json_at.h"
#include "base/rfc3339.h"
#include "etcd/member_id.h"
#include "operator/names.h"

namespace admin {

namespace {

using json = nlohmann::json;

std::string name_of(const json& o) { return o.contains("metadata") ? base::string_at(o, "/metadata/name") : ""; }

std::optional<long long> integer(const json& o, const json::json_pointer& p) {
  if (!o.contains(p) || !o.at(p).is_number_integer()) return std::nullopt;
  return o.at(p).get<long long>();
}

}  // namespace

const char* severity_name(Severity s) { return s == Severity::Transient ? "transient" : "error"; }

const etcd::Member* match_member(const json& cluster, const json& member, const std::vector<etcd::Member>& ms) {
  const std::string name = name_of(member);
  const std::string url = peer_url(cluster, member);
  for (const auto& m : ms) {
    if (!m.name.empty() && m.name == name) return &m;
  }
  for (const auto& m : ms) {
    for (const auto& u : m.peer_urls) {
      if (u == url) return &m;
    }
  }
  return nullptr;
}

std::vector<Finding> check_consistency(const ConsistencyInput& in) {
  std::vector<Finding> out;
  auto add = [&](const char* code, Severity sev, std::string member, std::uint64_t id, std::string message) {
    out.push_back({code, sev, std::move(member), id, std::move(message)});
  };
  std::map<std::string, const json*> pods;
  for (const auto& p : in.pods) pods[name_of(p)] = &p;

  // EtcdMembers against etcd.
  std::set<std::uint64_t> mapped;
  std::map<std::uint64_t, std::string> member_of;  // etcd member -> its EtcdMember
  for (const auto& m : in.members) {
    const std::string name = name_of(m);
    const bool terminating = base::find_at(m, "/metadata/deletionTimestamp") != nullptr;
    const bool pending = !m.contains("spec") || base::string_at(m, "/spec/initialCluster").empty();
    const bool dormant = base::bool_at(m, "/spec/dormant");
    const json status = base::object_at(m, "/status");
    std::uint64_t stored = 0;
    if (auto id = base::string_at(status, "/memberID"); !id.empty()) {
      if (auto p = etcd::parse_member_id(id)) stored = *p;
    }
    const etcd::Member* e = match_member(in.cluster, m, in.etcd.members);
    if (e) {
      mapped.insert(e->id);
      member_of[e->id] = name;
    }
    if (terminating) {
      add(finding::kTerminatingMember, Severity::Transient, name, stored,
          "EtcdMember is terminating; the operator waits for it before anything else");
    }
    if (dormant) {
      add(finding::kDormantMember, Severity::Transient, name, stored, "EtcdMember is dormant (cluster paused)");
    }
    if (pending && !e) {
      add(finding::kPendingMember, Severity::Transient, name, 0,
          "EtcdMember is pending (no initialCluster yet); the operator completes it");
    }
    if (!e) {
      if (stored != 0) {
        add(finding::kGhostMember, Severity::Error, name, stored,
            "status.memberID " + etcd::format_member_id(stored) + " is not an etcd member" +
                (terminating ? "; its finalizer will retry MemberRemove forever" : ""));
      }
      continue;
    }
    if (stored != 0 && stored != e->id) {
      add(finding::kMemberIdMismatch, Severity::Error, name, e->id,
          "status.memberID " + etcd::format_member_id(stored) + " but etcd lists the member as " +
              etcd::format_member_id(e->id));
    }
    const bool is_voter = base::bool_at(m, "/status/isVoter");
    if (is_voter == e->is_learner) {
      add(finding::kIsVoterMismatch, Severity::Error, name, e->id,
          std::string("status.isVoter is ") + (is_voter ? "true" : "false") + " but etcd lists a " +
              (e->is_learner ? "learner" : "voter"));
    }
    if (auto it = pods.find(name); it != pods.end()) {
      const json labels = base::object_at(*it->second, "/metadata/labels");
      const bool labelled = base::string_at(labels, "/" + base::pointer_token(op::kLabelRole)) == op::kRoleVoter;
      if (labelled != is_voter) {
        add(finding::kRoleLabelMismatch, Severity::Error, name, e->id,
            std::string("pod ") + (labelled ? "carries" : "lacks") + " the role label while status.isVoter is " +
                (is_voter ? "true" : "false"));
      }
    }
  }

  // etcd members without an EtcdMember.
  int learners = 0;
  for (const auto& e : in.etcd.members) {
    if (e.is_learner) ++learners;
    if (mapped.count(e.id)) continue;
    std::string label = e.name.empty() ? (e.peer_urls.empty() ? std::string() : e.peer_urls.front()) : e.name;
    if (e.is_learner) {
      add(finding::kOrphanLearner, Severity::Error, label, e.id,
          "etcd learner without an EtcdMember; every promote attempt of the operator fails on it");
    } else {
      add(finding::kStrayVoter, Severity::Error, label, e.id,
          "etcd voter without an EtcdMember; it counts for quorum but the operator does not see it");
    }
  }
  if (learners > 1) {
    add(finding::kMultipleLearners, Severity::Error, {}, 0, std::to_string(learners) + " learners in etcd");
  }

  // Voters nobody can dial: etcd and the operator's status may call them
  // healthy (their peers reach them), clients do not.
  for (const auto& e : in.etcd.members) {
    if (e.is_learner) continue;
    auto m = member_of.find(e.id);
    const std::string name = m != member_of.end() ? m->second : e.name;
    auto why = in.unreachable.find(name);
    if (name.empty() || why == in.unreachable.end()) continue;
    add(finding::kUnreachableMember, Severity::Error, name, e.id,
        "voter cannot be dialled: " + why->second + "; it counts for quorum, but clients cannot reach it");
  }

  // Pods rendered by hand (break-glass add).
  for (const auto& p : in.pods) {
    const json anns = base::object_at(p, "/metadata/annotations");
    if (anns.contains(std::string(op::kAnnRenderedBy))) {
      add(finding::kHandRenderedPod, Severity::Error, name_of(p), 0,
          "pod was rendered by " + base::string_at(anns, "/" + base::pointer_token(op::kAnnRenderedBy)) +
              "; `member roll` lets the operator recreate it");
    }
  }

  // Members whose etcd exits and is started again without becoming Ready
  // (docs/break-glass-design.md#restarting-members): the operator replaces
  // such a member itself after op::kSelfHealRestarts, unless the container
  // was OOMKilled; with no operator running nothing does.
  const bool nobody_heals = in.operator_state && !in.operator_state->active;
  for (const auto& p : in.pods) {
    if (base::find_at(p, "/metadata/deletionTimestamp") != nullptr) continue;
    const ContainerRestarts r = etcd_container_restarts(p);
    if (!restarting(r)) continue;
    std::string why = "etcd is not Ready and has " + describe_restarts(r);
    const bool oom = oom_killed(r);
    if (nobody_heals) {
      why += "; no operator runs to replace it: read `kubectl logs --previous` of the Pod, then fix it or "
             "`kubectl etcd member replace --break-glass`";
    } else if (oom) {
      why += "; the operator does not replace a member killed for memory: raise its memory limit";
    } else {
      why += "; the operator replaces a member that restarts " + std::to_string(op::kSelfHealRestarts) +
             " times without becoming Ready, while the others keep quorum";
    }
    std::uint64_t id = 0;
    for (const auto& [eid, member] : member_of) {
      if (member == name_of(p)) id = eid;
    }
    add(finding::kRestartingMember, nobody_heals || oom ? Severity::Error : Severity::Transient, name_of(p), id,
        std::move(why));
  }

  // Counts: spec / observed / running.
  const auto spec = integer(in.cluster, "/spec/replicas"_json_pointer);
  const auto observed = integer(in.cluster, "/status/observed/replicas"_json_pointer);
  long long running = 0;
  std::string not_ready;
  for (const auto& m : in.members) {
    bool terminating = base::find_at(m, "/metadata/deletionTimestamp") != nullptr;
    if (terminating || base::bool_at(m, "/spec/dormant")) continue;
    ++running;
    bool ready = false;
    for (const auto& c : base::array_at(m, "/status/conditions")) {
      ready = ready || (base::string_at(c, "/type") == "Ready" && base::string_at(c, "/status") == "True");
    }
    if (!ready) not_ready += (not_ready.empty() ? "" : ", ") + name_of(m);
  }
  const long long want = spec.value_or(3);
  if (want != observed.value_or(want) || running != observed.value_or(want)) {
    const bool deadline_set = base::find_at(in.cluster, "/status/progressDeadline") != nullptr;
    // The operator takes a new spec up only once its current target is
    // reached, every running member Ready, and says nothing while it waits
    // (Progressing stays False/Reconciled): a member that is not Ready holds
    // the change back for good (docs/operator-contract.md, "Membership changes").
    const bool held = want != observed.value_or(want) && !deadline_set && !not_ready.empty();
    const bool in_flight = !held && (want != observed.value_or(want) || deadline_set);
    add(finding::kReplicasMismatch, in_flight ? Severity::Transient : Severity::Error, {}, 0,
        "spec.replicas " + std::to_string(want) + ", status.observed.replicas " +
            (observed ? std::to_string(*observed) : std::string("unset")) + ", running EtcdMembers " +
            std::to_string(running) +
            (held ? "; the operator takes spec.replicas up only once every member is Ready, and " + not_ready +
                        " is not (see `kubectl etcd member unwedge`)"
                  : std::string()));
  }

  // The terminal DeadlineExceeded state (docs/break-glass-design.md#progress-deadline).
  bool deadline = false;
  if (in.cluster.contains("/status/conditions"_json_pointer)) {
    for (const auto& c : base::array_at(in.cluster, "/status/conditions")) {
      deadline = deadline || (base::string_at(c, "/reason") == "DeadlineExceeded" && base::string_at(c, "/status") == "False");
    }
  }
  if (!deadline && base::find_at(in.cluster, "/status/progressDeadline") != nullptr) {
    const std::string v = base::string_at(in.cluster, "/status/progressDeadline");
    if (!v.empty()) {
      auto t = base::parse_rfc3339_seconds(v);
      deadline = t && *t < std::chrono::system_clock::to_time_t(in.now);
    }
  }
  if (in.operator_state && !in.operator_state->active) {
    const auto& st = *in.operator_state;
    add(finding::kOperatorInactive, Severity::Error, {}, 0,
        st.reason + (st.looked_at.empty() ? std::string() : " (looked at " + st.looked_at + "; --operator NS/NAME names another Deployment)") +
            "; nothing completes pending members, promotions or replacements");
  }
  if (deadline) {
    add(finding::kDeadlineExceeded, Severity::Error, {}, 0,
        "the progress deadline passed; the operator does nothing until the spec changes");
  }
  return out;
}

nlohmann::ordered_json finding_json(const Finding& f) {
  nlohmann::ordered_json j;
  j["code"] = f.code;
  j["severity"] = severity_name(f.severity);
  j["member"] = f.member;
  j["id"] = f.id ? etcd::format_member_id(f.id) : std::string();
  j["message"] = f.message;
  return j;
}

}  // namespace admin
