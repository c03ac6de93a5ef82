// Objects as the native fixture (and the operator) lay them out, for the
// pure tests of lib/admin.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "admin/member_plan.h"
#include "admin/target.h"
#include "etcd/types.h"

namespace admin_test {

using json = nlohmann::json;

inline json cluster(bool tls = true) {
  json c = {{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"},
            {"kind", "EtcdCluster"},
            {"metadata", {{"name", "c"}, {"namespace", "ns"}}},
            {"spec", {{"replicas", 3}, {"version", "3.6.11"}}},
            {"status", {{"clusterID", "00000000000000aa"}, {"observed", {{"replicas", 3}}}, {"readyMembers", 3}}}};
  if (tls) {
    c["spec"]["tls"] = {{"client", {{"serverSecretRef", {{"name", "c-server-tls"}}}}},
                        {"peer", {{"secretRef", {{"name", "c-peer-tls"}}}}}};
  }
  return c;
}

// The target a command resolves for cluster(): ns/c, with its object.
inline admin::Target cluster_target() {
  admin::Target t;
  t.ns = "ns";
  t.cluster = "c";
  t.cluster_object = cluster();
  return t;
}

inline json member(const std::string& name, const std::string& id, bool voter = true) {
  return {{"metadata", {{"name", name}, {"namespace", "ns"}}},
          {"spec", {{"clusterName", "c"}, {"initialCluster", "x=https://x:2380"}}},
          {"status", {{"memberID", id}, {"isVoter", voter}, {"podName", name}}}};
}

inline json pod(const std::string& name, const std::string& ip, bool voter_label = true, bool ready = true) {
  json p = {{"metadata", {{"name", name}, {"namespace", "ns"}, {"labels", json::object()}}},
            {"status", {{"podIP", ip},
                        {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}};
  if (voter_label) p["metadata"]["labels"]["etcd-operator.cozystack.io/role"] = "voter";
  return p;
}

inline etcd::Member etcd_member(std::uint64_t id, const std::string& name, bool learner = false) {
  etcd::Member m;
  m.id = id;
  m.name = name;
  m.peer_urls = {"https://" + name + ".c.ns.svc:2380"};
  m.is_learner = learner;
  return m;
}

// The finalizer the operator puts on every EtcdMember.
inline json with_member_finalizer(json m) {
  m["metadata"]["finalizers"] = json::array({"etcd-operator.cozystack.io/member-cleanup"});
  return m;
}

// Three members c-aaaaa, c-bbbbb, c-ccccc (IDs 1, 2, 3) of cluster(): their
// EtcdMembers with the finalizer, Ready Pods, all listed by etcd and healthy.
inline admin::LiveState three_members(bool operator_active) {
  admin::LiveState s;
  s.cluster = cluster();
  s.members = json::array({with_member_finalizer(member("c-aaaaa", "0000000000000001")),
                           with_member_finalizer(member("c-bbbbb", "0000000000000002")),
                           with_member_finalizer(member("c-ccccc", "0000000000000003"))});
  s.pods = json::array({pod("c-aaaaa", "10.0.0.1"), pod("c-bbbbb", "10.0.0.2"), pod("c-ccccc", "10.0.0.3")});
  s.etcd.members = {etcd_member(1, "c-aaaaa"), etcd_member(2, "c-bbbbb"), etcd_member(3, "c-ccccc")};
  s.healthy = {1, 2, 3};
  s.operator_state = admin::OperatorState{operator_active, false, operator_active ? "lease held" : "no lease", ""};
  return s;
}

// An EtcdMember with the finalizer and Ready=True.
inline json with_finalizer(json m) {
  m = with_member_finalizer(std::move(m));
  m["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
  return m;
}

// three_members() as the operator leaves them once converged: uid, token,
// observed version and storage, Ready EtcdMembers, member 1 the leader.
inline admin::LiveState converged_state(bool operator_active = false) {
  admin::LiveState s = three_members(operator_active);
  s.cluster["metadata"]["uid"] = "uid-c";
  s.cluster["status"]["clusterToken"] = "ns-c-uid-c";
  s.cluster["status"]["observed"]["version"] = "3.6.11";
  s.cluster["status"]["observed"]["storage"] = {{"size", "1Gi"}};
  for (auto& m : s.members) m = with_finalizer(m);
  s.leader = 1;
  return s;
}

}  // namespace admin_test
