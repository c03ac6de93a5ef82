// Operator-mediated membership against the real operator, on a cluster it
// bootstrapped itself: `member add --wait` (3 -> 4, a learner that the
// operator promotes), `member remove --wait` of a follower and of the leader
// (the operator's finalizer removes it, its scale-up fills the gap),
// `member roll`, and a scale through the /scale subresource. Each step ends
// with `kubectl-etcd check` clean and etcd's membership equal to the
// EtcdMembers (docs/operator-contract.md, "Membership changes").
#include <doctest/doctest.h>

#include <set>

#include "operator_cluster.h"

using json = nlohmann::json;

namespace {

std::string pod_uid(const e2e::OperatorCluster& c, const std::string& pod) {
  return e2e::kubectl({"-n", c.ns(), "get", "pod", pod, "-o", "jsonpath={.metadata.uid}"});
}

// `member remove <victim> --wait`: when it returns etcd no longer lists the
// victim and the operator has filled the gap with a new Ready voter; the
// members that stay were not touched.
void remove_and_fill(e2e::OperatorCluster& c, const std::string& victim, const std::string& what) {
  const auto before = e2e::object_names(c.members());
  const auto ids_before = c.etcd_ids();
  std::map<std::string, std::string> stay;
  for (const auto& m : before) {
    if (m != victim) stay[m] = pod_uid(c, m);
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto r = c.tool({"member", "remove", victim}, {"--wait", "--yes", "--timeout", "4m"});
  INFO(what << ": stdout " << r.out << "\nstderr " << r.err);
  REQUIRE(r.rc == 0);
  MESSAGE(what << " took " << e2e::seconds_since(t0) << " s");
  // Done, or found done when the step first looked: the operator's
  // finalizer may remove a follower before the step starts (a CI run).
  CHECK((r.out.find("wait-removed: done") != std::string::npos ||
         r.out.find("wait-removed: skipped (etcd no longer lists " + victim + ")") != std::string::npos));
  CHECK(r.out.find("wait-filled: done") != std::string::npos);
  CHECK(r.err.find("waiting for the operator") != std::string::npos);  // progress on stderr
  // Read right after the command: nothing is left for the operator to do.
  const auto ids = c.etcd_ids();
  CHECK(ids.count(victim) == 0);
  for (const auto& [name, id] : ids) CHECK(id != ids_before.at(victim));
  const auto after = e2e::object_names(c.members());
  CHECK(after.count(victim) == 0);
  CHECK(after.size() == before.size());
  for (const auto& [m, uid] : stay) {
    CHECK(after.count(m) == 1);
    CHECK(pod_uid(c, m) == uid);
  }
  CHECK(e2e::converged(c.ns(), c.name()));
  c.check_settled(before.size(), what);
}

}  // namespace

TEST_CASE("operator-mediated add --wait, remove --wait of a follower and of the leader, roll, /scale") {
  e2e::OperatorCluster c("e2e-opmember", {});
  const std::size_t log_start = c.log_size();
  c.check_settled(3, "bootstrapped by the operator");

  // add --wait: returns only once the operator's learner is a promoted voter.
  const auto before = e2e::object_names(c.members());
  auto t0 = std::chrono::steady_clock::now();
  auto add = c.tool({"member", "add"}, {"--wait", "--yes", "--timeout", "4m"});
  INFO("add: stdout " << add.out << "\nstderr " << add.err);
  REQUIRE(add.rc == 0);
  MESSAGE("member add --wait took " << e2e::seconds_since(t0) << " s");
  CHECK(add.out.find("wait-added: done") != std::string::npos);
  CHECK(add.err.find("waiting for the operator to add a member") != std::string::npos);
  json members = c.etcd_members();
  CHECK(members.size() == 4);
  for (const auto& m : members) CHECK_FALSE(m.value("isLearner", false));
  std::string added;
  for (const auto& n : e2e::object_names(c.members())) {
    if (!before.count(n)) added = n;
  }
  CHECK_FALSE(added.empty());
  CHECK(add.out.find("member add " + added) != std::string::npos);  // the report names the operator's member
  CHECK(e2e::converged(c.ns(), c.name()));
  c.check_settled(4, "after member add --wait");

  // remove --wait of a follower, then of the leader.
  const std::string leader = c.leader();
  std::string follower;
  for (const auto& n : e2e::object_names(c.members())) {
    if (n != leader) follower = n;
  }
  remove_and_fill(c, follower, "member remove --wait of follower " + follower);
  const std::string leader_now = c.leader();
  remove_and_fill(c, leader_now, "member remove --wait of leader " + leader_now);
  CHECK(c.leader() != leader_now);

  // roll: the operator recreates the Pod from its template; same PVC, same member ID.
  const std::string rolled = *e2e::object_names(c.members()).begin();
  const std::string uid = pod_uid(c, rolled);
  const std::string id = c.etcd_ids().at(rolled);
  t0 = std::chrono::steady_clock::now();
  auto roll = c.tool({"member", "roll", rolled}, {"--yes", "--timeout", "3m"});
  INFO("roll: stdout " << roll.out << "\nstderr " << roll.err);
  REQUIRE(roll.rc == 0);
  MESSAGE("member roll took " << e2e::seconds_since(t0) << " s");
  CHECK(pod_uid(c, rolled) != uid);
  CHECK(c.etcd_ids().at(rolled) == id);
  c.wait_converged("the operator to report the rolled member Ready");
  c.check_settled(4, "after member roll");

  // spec.replicas through the /scale subresource, as `kubectl scale` does: the operator drops its newest member.
  e2e::kubectl({"-n", c.ns(), "scale", "etcdclusters.etcd-operator.cozystack.io", c.name(), "--replicas", "3"});
  CHECK(e2e::kubectl({"-n", c.ns(), "get", "etcdclusters.etcd-operator.cozystack.io", c.name(), "--subresource",
                      "scale", "-o", "jsonpath={.spec.replicas}"}) == "3");
  c.wait_converged("the operator to scale to 3 through /scale");
  c.check_settled(3, "after kubectl scale --replicas 3");

  // Nothing we wrote made the operator complain.
  auto errors = c.operator_errors(log_start);
  INFO("operator errors: " << json(errors).dump(2));
  CHECK(errors.empty());
}
