// etcd-migrate over --connect port-forward: the plan's live inspection, the
// adoption and verify reach every member through the apiserver's
// pods/portforward and the node agent (tests/testenv/node-agent, the
// stand-in for a kubelet's streaming server only), on a TLS+auth cluster.
#include <doctest/doctest.h>

#include "migrate_e2e.h"

using json = nlohmann::json;

TEST_CASE("adopt plans, applies and verifies over --connect port-forward (TLS+auth)") {
  e2e::Namespace ns("e2e-adopt-pf");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--auth"});
  const std::vector<std::string> coords = {"--legacy-controller", f.legacy_controller(), "--new-controller",
                                           f.new_controller()};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), coords.begin(), coords.end());
    return args;
  };

  auto plan = e2e::etcd_migrate(with({"adopt", "-n", ns.name(), "--connect", "port-forward", "-o", "json", "-v"}));
  INFO("stderr: " << plan.err);
  REQUIRE(plan.rc == 0);
  CHECK(plan.err.find("/portforward?ports=2379 101") != std::string::npos);
  json doc = json::parse(plan.out);
  json cp = e2e::cluster_plan(doc, ns.name(), "etcd");
  REQUIRE(cp.is_object());
  CHECK_FALSE(e2e::has_verdict(cp, "B1"));

  auto apply = e2e::etcd_migrate(
      with({"adopt", "-n", ns.name(), "--connect", "port-forward", "--apply", "--yes", "--skip-backup", "-o", "json"}));
  INFO("apply stderr: " << apply.err);
  REQUIRE(apply.rc == 0);

  auto verify = e2e::etcd_migrate({"verify", "-n", ns.name(), "--connect", "port-forward", "etcd"});
  INFO("verify: " << verify.out << verify.err);
  CHECK(verify.rc == 0);
  CHECK(verify.out.find("HashKV") != std::string::npos);
}
