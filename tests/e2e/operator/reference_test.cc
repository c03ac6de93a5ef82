// The Go reference etcd-migrate (built from the upstream snapshot with the
// operator) and ours, on the same kind of legacy cluster, judged by the real
// operator: where they differ, this test says which is right
// (docs/operator-contract.md, "Auth after adoption" and "Owners").
#include <doctest/doctest.h>

#include "../migrate/adopt_checks.h"
#include "operator_e2e.h"

using json = nlohmann::json;

TEST_CASE("the reference leaves a password-less root that the operator's auth-enable locks out; ours does not") {
  e2e::Namespace ns("e2e-reference");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--auth"});
  e2e::Operator op(f.new_controller(), ns.name(), 0);

  auto ref = e2e::run({e2e::var("TESTENV_OPERATOR_BIN") + "/etcd-migrate", "-k", e2e::var("KUBECONFIG"), "-n", ns.name(),
                       "--apply", "--yes", "--skip-backup", "--legacy-controller", f.legacy_controller(),
                       "--new-controller", f.new_controller()});
  INFO("reference etcd-migrate: " << ref.out << ref.err);
  REQUIRE(ref.rc == 0);
  // The reference's EtcdMembers have no owner: deleting the EtcdCluster would
  // leave them behind. Ours carry the EtcdCluster as controller
  // (handover_test.cc, adopt_apply_test.cc).
  const json members = e2e::get_json({"-n", ns.name(), "etcdmembers"})["items"];
  for (const auto& m : members) {
    CHECK_FALSE(m["metadata"].contains("ownerReferences"));
  }

  op.scale(1);
  op.wait_leading();
  e2e::wait_until(
      [&] {
        json c = e2e::get_json({"-n", ns.name(), "etcdclusters.etcd-operator.cozystack.io", "etcd"});
        return c["status"].value("authEnabled", false);
      },
      std::chrono::seconds(120), "the operator to enable auth on " + ns.name() + "/etcd");

  // The operator's UserAdd root was refused as "exists": root still has no
  // password, so the Secret's password is refused, by etcd and for the
  // operator itself.
  std::string b64 = e2e::kubectl({"-n", ns.name(), "get", "secret", "etcd-root-credentials", "-o", "jsonpath={.data.password}"});
  auto password = e2e::run({"base64", "-d"}, {}, b64);
  REQUIRE(password.rc == 0);
  auto login = f.etcdctl({"--user", "root:" + password.out, "get", "x"});
  CHECK(login.rc != 0);
  CHECK(login.err.find("password was given for no password user") != std::string::npos);
  e2e::wait_until([&] { return op.log().find("password was given for no password user") != std::string::npos; },
                  std::chrono::seconds(60), "the operator to fail its own root login");
}
