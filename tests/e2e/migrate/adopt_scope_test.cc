// Scope and gate: same-named clusters in two namespaces, the controller
// gate (an operator Deployment not at 0 warns in a dry-run, W19), the
// new-API CRD check, usage errors, and the exit codes of cli.md.
#include <doctest/doctest.h>

#include <map>

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

TEST_CASE("a pod of the operator image elsewhere: in the way when it watches this namespace, not when it watches others") {
  e2e::Namespace ns("e2e-scope-watch");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  const std::string image = e2e::kubectl({"-n", f.new_controller().substr(0, f.new_controller().find('/')), "get",
                                          "deployment", f.new_controller().substr(f.new_controller().find('/') + 1),
                                          "-o", "jsonpath={.spec.template.spec.containers[0].image}"});
  e2e::Namespace other("e2e-scope-other-op");
  auto operator_pod = [&](const std::string& name, const std::string& watch) {
    json pod = {{"apiVersion", "v1"}, {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", other.name()}}},
                // Never scheduled: no kubelet has to finish its deletion.
                {"spec", {{"containers", {{{"name", "manager"}, {"image", image},
                                           {"env", {{{"name", "WATCH_NAMESPACE"}, {"value", watch}}}}}}}}}};
    e2e::kubectl({"create", "-f", "-"}, pod.dump());
    e2e::kubectl({"-n", other.name(), "patch", "pod", name, "--subresource=status", "--type=merge", "-p",
                  R"({"status":{"phase":"Running"}})"});
  };
  operator_pod("elsewhere", "tenant-x,tenant-y");
  int rc = -1;
  json doc = e2e::adopt_plan(f, {}, rc);
  CHECK(rc == 0);
  CHECK(doc["gate"]["quiet"] == true);
  operator_pod("here", "tenant-x," + ns.name());
  doc = e2e::adopt_plan(f, {}, rc);
  CHECK(doc["gate"]["quiet"] == false);
  bool named = false;
  for (const auto& v : doc["verdicts"]) {
    if (v["id"] == "W19") named = named || v["message"].get<std::string>().find("/here runs the operator image") != std::string::npos;
    if (v["id"] == "W19") CHECK(v["message"].get<std::string>().find("/elsewhere") == std::string::npos);
  }
  CHECK(named);
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
  CHECK(e2e::etcd_migrate({"adopt", "--connect", "tunnel"}).rc == 128);
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

TEST_CASE("legacy EtcdBackups and schedules (D14, E10): pending converted, completed kept, schedule printed") {
  e2e::Namespace ns("e2e-scope-backups");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  const std::string dest = R"("destination": {"s3": {"endpoint": "https://s3.example", "bucket": "b",
                              "credentialsSecretRef": {"name": "creds"}}})";
  e2e::kubectl({"-n", ns.name(), "create", "-f", "-"},
               R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackup", "metadata": {"name": "pending"},
                   "spec": {"clusterRef": {"name": "etcd"}, )" + dest + "}}");
  e2e::kubectl({"-n", ns.name(), "create", "-f", "-"},
               R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackup", "metadata": {"name": "done"},
                   "spec": {"clusterRef": {"name": "etcd"}, )" + dest + "}}");
  e2e::kubectl({"-n", ns.name(), "patch", "etcdbackups.etcd.aenix.io", "done", "--subresource", "status",
                "--type", "merge", "-p",
                R"({"status": {"snapshot": {"uri": "s3://b/etcd-done.db", "checksum": "sha256:)" +
                    std::string(64, 'a') + R"(", "sizeBytes": 20480}}})"});
  e2e::kubectl({"-n", ns.name(), "create", "-f", "-"},
               R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackupSchedule", "metadata": {"name": "hourly"},
                   "spec": {"clusterRef": {"name": "etcd"}, "schedule": "0 * * * *", )" + dest + "}}");
  auto before = e2e::fingerprint(f);
  int rc = -1;
  json doc = e2e::adopt_plan(f, {"--schedule-image", "registry.local/kubectl:1.33"}, rc);
  CHECK(rc == 0);
  CHECK(doc["discovered"]["etcdBackups"] == 2);
  CHECK(doc["discovered"]["etcdBackupSchedules"] == 1);
  std::map<std::string, json> backups;
  for (const auto& b : doc["backups"]) backups[b["name"]] = b;
  REQUIRE(backups.count("pending") == 1);
  REQUIRE(backups.count("done") == 1);
  CHECK(backups["pending"]["action"] == "Create");  // its cluster is adopted by this run
  CHECK(backups["pending"]["objects"][0]["kind"] == "EtcdSnapshot");
  CHECK(backups["done"]["action"] == "Keep");
  CHECK(backups["done"]["artefact"] == "s3://b/etcd-done.db");
  REQUIRE(doc["schedules"].size() == 1);
  const json& s = doc["schedules"][0];
  CHECK(s["action"] == "Print");
  CHECK(s["objects"][3]["spec"]["concurrencyPolicy"] == "Forbid");
  CHECK(s["objects"][3]["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]["image"] ==
        "registry.local/kubectl:1.33");
  // The printed CronJob and RBAC are accepted by the real apiserver as they are.
  for (const auto& o : s["objects"]) {
    auto r = e2e::kubectl_result({"-n", ns.name(), "create", "--dry-run=server", "-f", "-"}, o.dump());
    CHECK_MESSAGE(r.rc == 0, r.err);
  }
  // --convert-completed-backups turns the completed one into a snapshot too.
  json converted = e2e::adopt_plan(f, {"--convert-completed-backups"}, rc);
  for (const auto& b : converted["backups"]) CHECK(b["action"] == "Create");
  CHECK(e2e::fingerprint(f) == before);
}
