// Lost answers to etcd's own writes (docs/server-faults.md#lost-answers-to-etcds-writes):
// grpc_lost_answer_proxy.py in front of every member of a plaintext native
// fixture, the members' Pods pointed at it (status.podIP, which
// `--connect direct` dials), so that every call kubectl-etcd makes to the
// fixture's members passes through it. The proxy counts the calls of etcd's
// writes and can lose the answer to the Nth.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "../admin/member_e2e.h"
#include "faults_e2e.h"

namespace grpc_e2e {

using faults_e2e::Background;
using faults_e2e::NativeCluster;

// etcd's writes (the calls the proxy counts), as gRPC paths.
inline const std::vector<std::string>& etcd_writes() {
  static const std::vector<std::string> paths{
      "/etcdserverpb.Cluster/MemberAdd",      "/etcdserverpb.Cluster/MemberRemove",
      "/etcdserverpb.Cluster/MemberPromote",  "/etcdserverpb.Cluster/MemberUpdate",
      "/etcdserverpb.Maintenance/MoveLeader", "/etcdserverpb.Auth/AuthEnable",
      "/etcdserverpb.Auth/AuthDisable",       "/etcdserverpb.Auth/UserAdd",
      "/etcdserverpb.Auth/UserDelete",        "/etcdserverpb.Auth/UserGrantRole"};
  return paths;
}

// The path of one of them by its method ("MemberAdd"), or all, comma-separated.
inline std::string write_paths(const std::string& method) {
  std::string out;
  for (const auto& p : etcd_writes()) {
    if (method.empty()) out += (out.empty() ? "" : ",") + p;
    if (!method.empty() && p.substr(p.rfind('/') + 1) == method) return p;
  }
  REQUIRE_MESSAGE(method.empty(), "not one of etcd's writes: " << method);
  return out;
}

// Plaintext (the proxy reads HTTP/2 frames), three members, the pod runner
// for the Pods an add creates.
inline admin_e2e::FixtureOptions plaintext_fixture() {
  auto o = member_e2e::runner_fixture("3.6", 3);
  o.tls = false;
  return o;
}

class GrpcProxy {
 public:
  // Loses the answer to the first call of `method` ("MemberAdd"; empty:
  // none, it only counts etcd's writes) and points the fixture's Pods at
  // itself. By method, not by the Nth write: how many calls a flow makes
  // varies (a MemberRemove asked of the member it removes loses its answer
  // by itself, and the client asks another member again), its writes do not.
  GrpcProxy(const NativeCluster& c, const std::string& dir, const std::string& method = {})
      : GrpcProxy(c.info()["members"], c.ns(), dir, method, {}) {}
  // `members` as a fixture's info lists them ({name, ip}), in namespace
  // `ns`; `tls`: the proxy's --tls arguments (empty: plaintext).
  GrpcProxy(const nlohmann::json& members, const std::string& ns, const std::string& dir, const std::string& method,
            const std::vector<std::string>& tls)
      : dir_(dir) {
    std::vector<std::string> args{"/usr/bin/python3",
                                  e2e::source_root() + "/tests/e2e/faults/grpc_lost_answer_proxy.py",
                                  "--log",
                                  log(),
                                  "--lose",
                                  write_paths(method),
                                  "--nth",
                                  method.empty() ? "0" : "1"};
    if (!tls.empty()) {
      args.push_back("--tls");
      args.insert(args.end(), tls.begin(), tls.end());
    }
    std::vector<std::string> pods;
    for (const auto& m : members) {
      args.push_back(m["ip"].get<std::string>() + ":2379");
      pods.push_back(m["name"]);
    }
    std::filesystem::create_directories(dir + "/proxy");
    proc_ = std::make_unique<Background>(args, dir + "/proxy");
    REQUIRE_MESSAGE(faults_e2e::wait_for([&] { return count("ready") == 1; }, std::chrono::seconds(30),
                                         std::chrono::milliseconds(20)),
                    "the proxy did not start: " << faults_e2e::slurp(dir + "/proxy/stderr"));
    const auto listen = lines("listen ");
    REQUIRE(listen.size() == pods.size());
    for (std::size_t i = 0; i < pods.size(); ++i) {
      // "listen 127.2.x.y:2379 UPSTREAM", in the order of the upstreams.
      std::istringstream w(listen[i]);
      std::string word, addr;
      w >> word >> addr;
      const std::string ip = addr.substr(0, addr.rfind(':'));
      e2e::kubectl({"-n", ns, "patch", "pod", pods[i], "--subresource=status", "--type=merge", "-p",
                    R"({"status":{"podIP":")" + ip + R"(","podIPs":[{"ip":")" + ip + R"("}]}})"});
    }
  }
  std::string log() const { return dir_ + "/proxy.log"; }
  std::vector<std::string> lines(const std::string& prefix) const {
    std::istringstream in(faults_e2e::slurp(log()));
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(prefix, 0) == 0) out.push_back(line);
    }
    return out;
  }
  int count(const std::string& prefix) const { return static_cast<int>(lines(prefix).size()); }
  // "cut N PATH" once the answer was lost, else empty.
  std::string cut() const {
    auto l = lines("cut ");
    return l.empty() ? std::string() : l.front();
  }
  // The methods of the counted calls in the order of their first call
  // ("MemberAdd", "MemberPromote"), and all calls as one line.
  std::vector<std::string> methods() const {
    std::vector<std::string> out;
    for (const auto& m : calls()) {
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
    }
    return out;
  }
  std::string calls_line() const {
    std::string out;
    for (const auto& m : calls()) out += (out.empty() ? "" : " ") + m;
    return out;
  }

 private:
  std::vector<std::string> calls() const {
    std::vector<std::string> out;
    for (const auto& l : lines("call ")) {
      std::istringstream w(l);
      std::string word, n, path;
      w >> word >> n >> path;
      out.push_back(path.substr(path.rfind('/') + 1));
    }
    return out;
  }
  std::string dir_;
  std::unique_ptr<Background> proc_;  // killed with the object
};

// What an uninterrupted run and every re-run must agree on: the EtcdMembers
// and etcd's members (names, voters, learners) and the cluster's counts.
struct End {
  int members = 0;       // EtcdMembers
  int etcd = 0;          // etcd members
  int learners = 0;      // of them learners
  bool same_names = false;  // EtcdMember names = etcd member names
  std::string counts;    // spec.replicas/status.observed.replicas/status.readyMembers
  bool operator==(const End& o) const {
    return members == o.members && etcd == o.etcd && learners == o.learners && same_names == o.same_names &&
           counts == o.counts;
  }
};

// The last line a run printed on stderr (its error, or its last step).
inline std::string last_line(const std::string& err) {
  std::string s = err;
  while (!s.empty() && s.back() == '\n') s.pop_back();
  auto nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

inline std::ostream& operator<<(std::ostream& os, const End& e) {
  return os << e.members << " EtcdMembers, " << e.etcd << " etcd members (" << e.learners << " learners), names "
            << (e.same_names ? "the same" : "differ") << ", counts " << e.counts;
}

inline End end_state(const NativeCluster& c) {
  End e;
  std::istringstream in(c.kubectl({"get", "etcdmember", "-o", "jsonpath={.items[*].metadata.name}"}));
  std::vector<std::string> members, etcd;
  for (std::string n; in >> n;) members.push_back(n);
  for (const auto& m : member_e2e::etcd_members(c)) {
    etcd.push_back(m.value("name", std::string()));
    e.learners += m.value("isLearner", false) ? 1 : 0;
  }
  std::sort(members.begin(), members.end());
  std::sort(etcd.begin(), etcd.end());
  e.members = static_cast<int>(members.size());
  e.etcd = static_cast<int>(etcd.size());
  e.same_names = members == etcd;
  e.counts = c.kubectl({"get", "etcdcluster", c.name(), "-o",
                        "jsonpath={.spec.replicas}/{.status.observed.replicas}/{.status.readyMembers}"});
  return e;
}

}  // namespace grpc_e2e
