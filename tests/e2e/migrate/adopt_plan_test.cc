// etcd-migrate adopt without --apply against legacy fixtures on etcd 3.4,
// 3.5 and 3.6: the plan says Adopt with the live cluster's facts, shows the
// objects it would write, never shows a password, and nothing changes in
// the apiserver or in etcd.
#include <doctest/doctest.h>

#include "migrate_e2e.h"

using json = nlohmann::json;

namespace {

void check_adoptable(const std::string& version, const std::vector<std::string>& variant, bool auth) {
  e2e::Namespace ns("e2e-plan-" + version.substr(0, 1) + version.substr(2));
  std::vector<std::string> args = {"--version", version, "--replicas", "3"};
  args.insert(args.end(), variant.begin(), variant.end());
  e2e::LegacyFixture f(ns.name(), "etcd", args);
  auto before = e2e::fingerprint(f);
  long long revision = f.etcd_revision();

  int rc = -1;
  json doc = e2e::adopt_plan(f, {}, rc);
  CHECK(rc == 0);
  json plan = e2e::cluster_plan(doc, ns.name(), "etcd");
  REQUIRE(plan.is_object());
  INFO("verdicts: " << plan["verdicts"].dump());
  CHECK(plan["action"] == "Adopt");
  CHECK(plan["clusterID"] == f.etcd_cluster_id());
  CHECK(doc["gate"]["quiet"] == true);
  CHECK(doc["discovered"]["etcdClusters"] == 1);
  for (const char* id : {"N3", "N4", "N5", "N6", "W16"}) CHECK(e2e::has_verdict(plan, id));
  CHECK(e2e::has_verdict(plan, "N1") == auth);
  CHECK(e2e::has_verdict(plan, "W13") == auth);
  CHECK(plan["liveAuth"] == auth);
  CHECK_FALSE(e2e::has_verdict(plan, "B16"));

  // The objects: the Secret (with auth), the EtcdCluster, three EtcdMembers.
  const json& objects = plan["objects"];
  REQUIRE(objects.size() == (auth ? 5u : 4u));
  size_t first = auth ? 1 : 0;
  if (auth) {
    CHECK(objects[0]["kind"] == "Secret");
    CHECK_FALSE(objects[0]["stringData"].contains("password"));
  }
  const json& cluster = objects[first];
  CHECK(cluster["kind"] == "EtcdCluster");
  CHECK(cluster["spec"]["replicas"] == 3);
  // The version is the image tag of the legacy pod template (docs/rules.md#translation).
  std::string image = e2e::kubectl({"-n", ns.name(), "get", "etcdclusters.etcd.aenix.io", "etcd", "-o",
                                    "jsonpath={.spec.podTemplate.spec.containers[?(@.name==\"etcd\")].image}"});
  std::string expected = image.empty() ? "3.5.12" : image.substr(image.rfind(":v") + 2);
  CHECK(cluster["spec"]["version"] == expected);
  CHECK(cluster["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/adopted-from"].is_string());
  CHECK(doc["clusters"][0]["clusterStatus"]["clusterID"] == plan["clusterID"]);
  auto live = json::parse(f.etcdctl({"member", "list", "--write-out=json"}).out);
  for (size_t i = 0; i < 3; ++i) {
    const json& m = objects[first + 1 + i];
    CHECK(m["kind"] == "EtcdMember");
    CHECK(m["metadata"]["name"] == "etcd-" + std::to_string(i));
    CHECK(m["metadata"]["ownerReferences"][0]["kind"] == "EtcdCluster");
    std::string id = plan["memberStatuses"]["etcd-" + std::to_string(i)]["memberID"];
    bool found = false;
    for (const auto& lm : live["members"]) {
      char buf[17];
      std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(lm["ID"].get<unsigned long long>()));
      if (lm["name"] == "etcd-" + std::to_string(i)) found = buf == id;
    }
    CHECK_MESSAGE(found, "member ID of etcd-" << i << " is " << id);
  }

  // The text form: the same plan, the CRD notice, no password anywhere.
  auto text = e2e::etcd_migrate({"adopt", "-n", ns.name(), "--connect", "direct", "--legacy-controller",
                                 f.legacy_controller(), "--new-controller", f.new_controller()});
  CHECK(text.rc == 0);
  CHECK(text.out.find("EtcdCluster " + ns.name() + "/etcd: Adopt") != std::string::npos);
  CHECK(text.out.find("dry-run complete: nothing was changed") != std::string::npos);
  CHECK(text.out.find("kubectl delete crd etcdclusters.etcd.aenix.io") != std::string::npos);
  CHECK(text.out.find("kind: EtcdMember") != std::string::npos);
  if (auth) {
    CHECK(text.out.find("never printed") != std::string::npos);
    CHECK(text.out.find("dry-run-placeholder") == std::string::npos);
  }
  // A bare `etcd-migrate [flags]` is `adopt`.
  auto bare = e2e::etcd_migrate({"-n", ns.name(), "--connect", "direct", "-o", "json", "--legacy-controller",
                                 f.legacy_controller(), "--new-controller", f.new_controller()});
  CHECK(bare.rc == 0);
  CHECK(json::parse(bare.out)["clusters"][0]["action"] == "Adopt");

  CHECK(e2e::fingerprint(f) == before);
  CHECK(f.etcd_revision() == revision);
}

}  // namespace

TEST_CASE("etcd 3.4 with TLS: Adopt, nothing changed") { check_adoptable("3.4", {"--tls"}, false); }
TEST_CASE("etcd 3.5 plain: Adopt, nothing changed") { check_adoptable("3.5", {}, false); }
TEST_CASE("etcd 3.6 with TLS and auth: Adopt with a generated Secret never shown, nothing changed") {
  check_adoptable("3.6", {"--tls", "--auth"}, true);
}

TEST_CASE("name overrides of both Services are honoured") {
  e2e::Namespace ns("e2e-plan-svc");
  e2e::LegacyFixture f(ns.name(), "etcd",
                       {"--version", "3.6", "--tls", "--client-service", "etcd-api", "--headless-service", "etcd-peers"});
  int rc = -1;
  json doc = e2e::adopt_plan(f, {"--skip-backup"}, rc);
  json plan = e2e::cluster_plan(doc, ns.name(), "etcd");
  INFO(plan.dump());
  CHECK(rc == 0);
  CHECK(plan["action"] == "Adopt");
  CHECK(plan["headlessService"] == "etcd-peers");
  CHECK(plan["clientService"] == "etcd-api");
  CHECK(plan["objects"][1]["metadata"]["annotations"]["etcd-operator.cozystack.io/headless-service-name"] == "etcd-peers");
  CHECK(e2e::has_verdict(plan, "W4"));
  CHECK(e2e::has_verdict(plan, "W5"));
  CHECK_FALSE(e2e::has_verdict(plan, "W16"));  // --skip-backup
}
