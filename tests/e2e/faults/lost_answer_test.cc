// A lost answer (docs/server-faults.md#lost-answers): the apiserver applied
// a write but its answer never reached kubectl-etcd (fault_proxy.py
// "lose:N" cuts the connection after reading it). The matrix for
// `member remove --break-glass --scale-down`: one uninterrupted run counts
// its writes W; then for every N in 1..W a fresh cluster, the answer to
// write N lost, the run fails or retries as it chooses, and the same
// command again. Each time the end state is the uninterrupted run's: the
// member gone from etcd and the EtcdMembers, spec and observed replicas and
// readyMembers counted down once, and `check` clean.
#include <sstream>

#include "../admin/member_e2e.h"
#include "apiserver_e2e.h"

using namespace faults_e2e;

namespace {

struct End {
  std::string members;  // EtcdMembers
  std::string etcd;     // etcd's member names
  std::string counts;   // spec/observed/readyMembers
  bool operator==(const End& o) const { return members == o.members && etcd == o.etcd && counts == o.counts; }
};

std::ostream& operator<<(std::ostream& os, const End& e) {
  return os << "EtcdMembers [" << e.members << "] etcd [" << e.etcd << "] counts " << e.counts;
}

End end_state(const NativeCluster& c) {
  End e;
  e.members = c.kubectl({"get", "etcdmember", "-o", "jsonpath={.items[*].metadata.name}"});
  std::vector<std::string> names;
  for (const auto& m : member_e2e::etcd_members(c)) names.push_back(m.value("name", std::string()));
  std::sort(names.begin(), names.end());
  for (const auto& n : names) e.etcd += (e.etcd.empty() ? "" : " ") + n;
  e.counts = c.kubectl({"get", "etcdcluster", c.name(), "-o",
                        "jsonpath={.spec.replicas}/{.status.observed.replicas}/{.status.readyMembers}"});
  return e;
}

// The fixture's members with `gone` left out, as the EtcdMember list prints them.
std::string without(const std::vector<std::string>& ms, const std::string& gone) {
  std::string out;
  for (const auto& m : ms) {
    if (m != gone) out += (out.empty() ? "" : " ") + m;
  }
  return out;
}

e2e::CommandResult remove(const NativeCluster& c, const std::string& target, const std::string& kubeconfig) {
  std::map<std::string, std::string> env;
  if (!kubeconfig.empty()) env["KUBECONFIG"] = kubeconfig;
  return member_e2e::member(c, {"remove", target, "--scale-down", "-o", "json"}, env);
}

// A follower: its removal needs no handover (the matrix is about the writes).
std::string follower(const NativeCluster& c) {
  const std::string leader = leader_of(c);
  for (const auto& m : c.members()) {
    if (m != leader) return m;
  }
  FAIL("no follower");
  return {};
}

}  // namespace

TEST_CASE("member remove --break-glass --scale-down: the answer to each write lost, then the same command again") {
  int writes = 0;
  {
    NativeCluster c(member_e2e::runner_fixture("3.6", 3));
    const auto ms = c.members();
    const std::string target = follower(c);
    const std::string work = tmpdir("e2e-lost-0");
    FaultProxy proxy(work, FaultProxy::lose(0));
    auto r = remove(c, target, proxy.kubeconfig());
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    writes = proxy.count("write ");
    const End end = end_state(c);
    CHECK(end == End{without(ms, target), without(ms, target), "2/2/2"});
    member_e2e::check_clean(c, "uninterrupted remove");
    e2e::run({"rm", "-rf", work});
  }
  MESSAGE("W = " << writes << " mutating requests");
  REQUIRE(writes >= 4);
  for (int n = 1; n <= writes; ++n) {
    CAPTURE(n);
    NativeCluster c(member_e2e::runner_fixture("3.6", 3));
    const auto ms = c.members();
    const std::string target = follower(c);
    const std::string work = tmpdir("e2e-lost-" + std::to_string(n));
    FaultProxy proxy(work, FaultProxy::lose(n));
    auto first = remove(c, target, proxy.kubeconfig());
    std::istringstream log(slurp(proxy.log()));
    std::string lost;
    for (std::string line; std::getline(log, line);) {
      if (line.rfind("lost ", 0) == 0) lost = line;
    }
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc << ": " << first.err);
    CHECK_FALSE(lost.empty());
    auto again = remove(c, target, "");
    MESSAGE("N = " << n << ": re-run rc " << again.rc);
    INFO("re-run: " << again.out << again.err);
    // A first run that finished (it read again after the lost answer and
    // found its write done) leaves nothing to remove: the re-run says so (6).
    CHECK((again.rc == 0 || (first.rc == 0 && again.rc == 6)));
    CHECK(end_state(c) == End{without(ms, target), without(ms, target), "2/2/2"});
    member_e2e::check_clean(c, "re-run after lost answer " + std::to_string(n));
    e2e::run({"rm", "-rf", work});
  }
}
