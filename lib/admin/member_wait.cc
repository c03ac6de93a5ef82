#include "admin/member_wait.h"

#include <algorithm>

#include "admin/member_object.h"
#include "base/json_at.h"
#include "etcd/member_id.h"
#include "operator/meta.h"
#include "operator/names.h"

namespace admin {

using json = nlohmann::json;

namespace {


// The status of condition `type`, or "" when absent.
std::string condition(const json& o, const std::string& type, std::string* reason = nullptr) {
  for (const auto& c : base::array_at(o, "/status/conditions")) {
    if (base::string_at(c, "/type") != type) continue;
    if (reason != nullptr) *reason = base::string_at(c, "/reason");
    return base::string_at(c, "/status");
  }
  return {};
}


WaitVerdict waiting(std::string text) { return WaitVerdict{false, std::move(text), {}, {}, 0}; }

}  // namespace

WaitVerdict judge_settled(const LiveState& s, long long want, const std::vector<std::string>& before) {
  const std::string n = std::to_string(want);
  if (!s.etcd_error.empty()) return waiting("etcd answers no linearizable MemberList (" + s.etcd_error + ")");
  const long long spec = base::int_at(s.cluster, "/spec/replicas", 3);
  const long long observed = base::int_at(s.cluster, "/status/observed/replicas", 0);
  if (spec != want) return waiting("spec.replicas is " + std::to_string(spec) + ", not " + n + ": someone else changed it");
  if (observed != want) return waiting("the operator has not adopted spec.replicas " + n + " yet (observed " + std::to_string(observed) + ")");

  std::vector<const json*> running;
  for (const auto& m : s.members) {
    if (deleting(m)) return waiting("EtcdMember " + name_of(m) + " is Terminating");
    if (dormant(m)) continue;
    if (awaiting_initial_cluster(m)) return waiting("EtcdMember " + name_of(m) + " is pending (the operator wires it)");
    running.push_back(&m);
  }
  for (const auto& e : s.etcd.members) {
    if (e.is_learner) {
      return waiting("etcd member " + (e.name.empty() ? etcd::format_member_id(e.id) : e.name) +
                     " is a learner (the operator promotes it once it is in sync)");
    }
  }
  if (static_cast<long long>(running.size()) != want) {
    return waiting(std::to_string(running.size()) + " of " + n + " EtcdMembers exist");
  }
  WaitVerdict v;
  for (const json* m : running) {
    const std::string name = name_of(*m);
    std::string reason;
    if (condition(*m, "Ready", &reason) != "True") {
      return waiting("EtcdMember " + name + " is not Ready" + (reason.empty() ? std::string() : " (" + reason + ")"));
    }
    const std::uint64_t id = stored_id(*m);
    const auto* e = id == 0 ? nullptr : find_member(s.etcd, id, {}, {});
    if (e == nullptr) return waiting("EtcdMember " + name + " has no memberID that etcd lists yet");
    if (!s.healthy.count(id)) {
      WaitVerdict w = waiting("etcd member " + name + " does not answer Status");
      if (auto it = s.dial_errors.find(id); it != s.dial_errors.end()) w.cause = it->second;
      return w;
    }
    if (!base::bool_at(*m, "/status/isVoter")) return waiting("EtcdMember " + name + " is not marked a voter yet");
    const json* pod = s.pod(name);
    if (pod == nullptr || op::label(*pod, op::kLabelRole) != op::kRoleVoter) {
      return waiting("the Pod of " + name + " does not carry the voter label yet");
    }
    if (std::find(before.begin(), before.end(), name) == before.end() && v.member.empty()) {
      v.member = name;
      v.id = id;
    }
  }
  if (static_cast<long long>(s.etcd.members.size()) != want) {
    return waiting("etcd lists " + std::to_string(s.etcd.members.size()) + " members, not " + n);
  }
  const long long ready = base::int_at(s.cluster, "/status/readyMembers", -1);
  std::string reason;
  const std::string progressing = condition(s.cluster, "Progressing", &reason);
  if (ready != want || progressing != "False") {
    return waiting("the EtcdCluster status does not report it yet (readyMembers " + std::to_string(ready) +
                   ", Progressing " + (progressing.empty() ? "unset" : progressing + "/" + reason) + ")");
  }
  v.done = true;
  v.text = n + " Ready voters" + (v.member.empty() ? std::string() : ", new: " + v.member + " " + etcd::format_member_id(v.id));
  return v;
}

WaitVerdict judge_removed(const LiveState& s, const std::string& name, std::uint64_t id, const std::string& peer_url) {
  if (!s.etcd_error.empty()) return waiting("etcd answers no linearizable MemberList (" + s.etcd_error + ")");
  const std::string who = name.empty() ? etcd::format_member_id(id) : name;
  if (find_member(s.etcd, id, name, peer_url) != nullptr) return waiting("etcd still lists " + who);
  for (const auto& m : s.members) {
    if (!name.empty() && name_of(m) == name) return waiting("EtcdMember " + name + " still exists (its finalizer runs)");
  }
  return WaitVerdict{true, "etcd no longer lists " + who, {}, {}, 0};
}

}  // namespace admin
