// Operator-mediated membership on a TLS cluster the real operator
// bootstrapped (client and peer TLS with client-certificate auth, Secrets made
// as a user would): `member add --wait` that runs out of --timeout exits 4 and
// the operator finishes by itself, `member remove --wait` of the leader,
// `member roll` (the new Pod mounts the same Secrets), and a scale through
// /scale; each ends with `check` clean and etcd equal to the EtcdMembers.
#include <doctest/doctest.h>

#include <set>

#include "operator_cluster.h"

using json = nlohmann::json;

TEST_CASE("TLS: add --wait out of time exits 4 and the operator goes on; remove --wait of the leader; roll; /scale") {
  e2e::OperatorCluster c("e2e-opmtls", {.tls = true});
  const std::size_t log_start = c.log_size();
  c.check_settled(3, "bootstrapped by the operator with TLS");

  // Too short a budget: exit 4, the wait's last word on stderr, and the
  // operator completes the change it was handed.
  auto add = c.tool({"member", "add"}, {"--wait", "--yes", "--timeout", "300ms"});
  INFO("add: stdout " << add.out << "\nstderr " << add.err);
  CHECK(add.rc == 4);
  CHECK(add.err.find("timed out after 300ms waiting for the operator to add a member") != std::string::npos);
  CHECK(add.err.find("the operator goes on by itself") != std::string::npos);
  c.wait_converged("the operator to finish the add by itself");
  c.check_settled(4, "after the operator finished the add");

  // The leader goes next.
  const std::string leader = c.leader();
  const auto before = e2e::object_names(c.members());
  const auto t0 = std::chrono::steady_clock::now();
  auto rm = c.tool({"member", "remove", leader}, {"--wait", "--yes", "--timeout", "4m"});
  INFO("remove: stdout " << rm.out << "\nstderr " << rm.err);
  REQUIRE(rm.rc == 0);
  MESSAGE("member remove --wait of the leader took " << e2e::seconds_since(t0) << " s");
  CHECK(c.etcd_ids().count(leader) == 0);
  const auto after = e2e::object_names(c.members());
  CHECK(after.count(leader) == 0);
  CHECK(after.size() == 4);
  CHECK(c.leader() != leader);
  c.check_settled(4, "after member remove --wait of the leader");

  const std::string rolled = *after.begin();
  const std::string uid = e2e::kubectl({"-n", c.ns(), "get", "pod", rolled, "-o", "jsonpath={.metadata.uid}"});
  const std::string id = c.etcd_ids().at(rolled);
  auto roll = c.tool({"member", "roll", rolled}, {"--yes", "--timeout", "3m"});
  INFO("roll: stdout " << roll.out << "\nstderr " << roll.err);
  REQUIRE(roll.rc == 0);
  CHECK(e2e::kubectl({"-n", c.ns(), "get", "pod", rolled, "-o", "jsonpath={.metadata.uid}"}) != uid);
  CHECK(c.etcd_ids().at(rolled) == id);
  c.wait_converged("the operator to report the rolled member Ready");
  c.check_settled(4, "after member roll");

  e2e::kubectl({"-n", c.ns(), "scale", "etcdclusters.etcd-operator.cozystack.io", c.name(), "--replicas", "3"});
  c.wait_converged("the operator to scale to 3 through /scale");
  c.check_settled(3, "after kubectl scale --replicas 3");

  auto errors = c.operator_errors(log_start);
  INFO("operator errors: " << json(errors).dump(2));
  CHECK(errors.empty());
}
