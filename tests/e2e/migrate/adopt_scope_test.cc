// Scope and gate: same-named clusters in two namespaces, the controller
// gate (an operator Deployment not at 0 warns in a dry-run, W19), the
// new-API CRD check, usage errors, and the exit codes of cli.md.
#include <doctest/doctest.h>

#include "migrate_e2e.h"

using json = nlohmann::json;

TEST_CASE("two namespaces with same-named clusters: each planned against its own etcd") {
  e2e::Namespace a("e2e-scope-a");
  e2e::Namespace b("e2e-scope-b");
  e2e::LegacyFixture fa(a.name(), "etcd", {"--version", "3.5"});
  e2e::LegacyFixture fb(b.name(), "etcd", {"--version", "3.6", "--tls"});
  // Every namespace (the default scope); other tests' clusters may show up too.
  auto r = e2e::etcd_migrate({"adopt", "--connect", "direct", "-o", "json", "--skip-controller-check"});
  INFO(r.err);
  REQUIRE(r.rc != 128);
  json doc = json::parse(r.out);
  json pa = e2e::cluster_plan(doc, a.name(), "etcd"), pb = e2e::cluster_plan(doc, b.name(), "etcd");
  REQUIRE(pa.is_object());
  REQUIRE(pb.is_object());
  CHECK(pa["action"] == "Adopt");
  CHECK(pb["action"] == "Adopt");
  CHECK(pa["clusterID"] == fa.etcd_cluster_id());
  CHECK(pb["clusterID"] == fb.etcd_cluster_id());
  CHECK(pa["clusterID"] != pb["clusterID"]);
  CHECK(doc["gate"]["skipped"] == true);
  CHECK(doc["scope"].is_null());
  // -n limits discovery to one namespace.
  int rc = -1;
  json only = e2e::adopt_plan(fa, {}, rc);
  CHECK(rc == 0);
  CHECK(only["clusters"].size() == 1);
  CHECK(only["scope"] == a.name());
}

TEST_CASE("an operator Deployment not at 0: the dry-run warns (W19, D16) and still plans") {
  e2e::Namespace ns("e2e-scope-gate");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  auto before = e2e::fingerprint(f);
  auto [ons, oname] = [&] {
    std::string c = f.legacy_controller();
    return std::pair{c.substr(0, c.find('/')), c.substr(c.find('/') + 1)};
  }();
  e2e::kubectl({"-n", ons, "scale", "deployment", oname, "--replicas=1"});
  int rc = -1;
  json doc = e2e::adopt_plan(f, {}, rc);
  CHECK(rc == 0);
  CHECK(doc["gate"]["quiet"] == false);
  bool w19 = false;
  for (const auto& v : doc["verdicts"]) {
    if (v["id"] == "W19") w19 = v["message"].get<std::string>().find(oname) != std::string::npos;
  }
  CHECK(w19);
  CHECK(e2e::cluster_plan(doc, ns.name(), "etcd")["action"] == "Adopt");
  // --apply refuses while the operator runs (3), before anything is touched.
  auto apply = e2e::etcd_migrate({"adopt", "-n", ns.name(), "--connect", "direct", "--apply", "--yes",
                                  "--skip-backup", "--legacy-controller", f.legacy_controller(),
                                  "--new-controller", f.new_controller()});
  CHECK(apply.rc != 0);
  e2e::kubectl({"-n", ons, "scale", "deployment", oname, "--replicas=0"});
  auto after = e2e::fingerprint(f);
  CHECK(after == before);
}

TEST_CASE("the legacy webhook configurations are named (N11, D18)") {
  e2e::Namespace ns("e2e-scope-hooks");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6"});
  int rc = -1;
  json doc = e2e::adopt_plan(f, {}, rc);
  CHECK(rc == 0);
  std::string hooks = doc["legacyWebhooks"].dump();
  CHECK(hooks.find(f.info()["webhooks"][0].get<std::string>()) != std::string::npos);
  CHECK(hooks.find(f.info()["webhooks"][1].get<std::string>()) != std::string::npos);
  bool n11 = false;
  for (const auto& v : doc["verdicts"]) n11 = n11 || v["id"] == "N11";
  CHECK(n11);
}

TEST_CASE("usage errors are 128 and contact nothing; an empty namespace has nothing to migrate") {
  CHECK(e2e::etcd_migrate({"adopt", "--apply", "--dry-run"}).rc == 128);
  CHECK(e2e::etcd_migrate({"adopt", "--legacy-controller", "nonsense"}).rc == 128);
  CHECK(e2e::etcd_migrate({"adopt", "--connect", "port-forward"}).rc == 128);
  CHECK(e2e::etcd_migrate({"adopt", "--output", "xml"}).rc == 128);
  CHECK(e2e::etcd_migrate({"adopt", "--no-such-flag"}).rc == 128);
  e2e::Namespace empty("e2e-scope-empty");
  auto r = e2e::etcd_migrate({"adopt", "-n", empty.name(), "--skip-controller-check"});
  CHECK(r.rc == 0);
  CHECK(r.out.find("nothing to migrate") != std::string::npos);
  // An unreachable apiserver: exit 2.
  auto down = e2e::run({e2e::etcd_migrate_path(), "adopt", "--skip-controller-check", "--request-timeout", "3s"},
                       {{"KUBECONFIG", "/dev/null"}, {"KUBERNETES_SERVICE_HOST", "127.0.0.1"},
                        {"KUBERNETES_SERVICE_PORT", "1"}, {"HOME", "/nonexistent"}});
  CHECK(down.rc != 0);
}
