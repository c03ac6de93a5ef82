// Edge cases found by acceptance runs on real-world manifests (issue 26),
// laid out with the legacy fixture: a client Service reached from outside
// (B20, W21 with --replace-client-service, N14 under its own name), a legacy
// EtcdCluster rendered by Helm/Flux (W22, and verify seeing it re-created),
// the legacy webhooks removed before the orphan delete so the legacy object
// goes at once, and otherwise the way to end the wait, in the result and in
// verify.
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <thread>

#include "adopt_checks.h"

using json = nlohmann::json;

namespace {

std::string message_of(const json& plan, const std::string& id) {
  for (const auto& v : plan["verdicts"]) {
    if (v["id"] == id) return v["message"];
  }
  return {};
}

json service(const std::string& ns, const std::string& name) {
  return json::parse(e2e::kubectl({"-n", ns, "get", "service", name, "-o", "json"}));
}

// The text plan, as a user reads it.
e2e::CommandResult plan_text(const e2e::LegacyFixture& f, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"adopt", "-n", f.ns(), "--connect", "direct", "--skip-backup",
                                   "--legacy-controller", f.legacy_controller(), "--new-controller", f.new_controller()};
  args.insert(args.end(), extra.begin(), extra.end());
  return e2e::etcd_migrate(args);
}

void wait_until(const std::function<bool()>& ready, std::chrono::seconds timeout, const std::string& what) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) FAIL("timed out after " << timeout.count() << " s waiting for " << what);
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

bool legacy_gone(const std::string& ns) {
  return e2e::kubectl_result({"-n", ns, "get", "etcdclusters.etcd.aenix.io", "etcd"}).rc != 0;
}

// Every label and annotation key of the objects the adoption wrote or took over.
std::vector<std::string> metadata_keys(const std::string& ns) {
  std::vector<std::string> keys;
  json all = json::parse(e2e::kubectl({"-n", ns, "get",
                                       "etcdclusters.etcd-operator.cozystack.io,etcdmembers,services,pods,"
                                       "persistentvolumeclaims,secrets",
                                       "-o", "json"}));
  for (const auto& o : all["items"]) {
    for (const char* m : {"labels", "annotations"}) {
      if (!o["metadata"].contains(m)) continue;
      for (auto it = o["metadata"][m].begin(); it != o["metadata"][m].end(); ++it) {
        keys.push_back(o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>() + " " +
                       it.key() + "=" + (it->is_string() ? it->get<std::string>() : it->dump()));
      }
    }
  }
  return keys;
}

}  // namespace

TEST_CASE("a LoadBalancer client Service named <c> blocks (B20) with its class, address and the fix; "
          "--replace-client-service plans W21 and the step, and --apply replaces it") {
  e2e::Namespace ns("e2e-edge-lb");
  e2e::LegacyFixture f(ns.name(), "etcd",
                       {"--version", "3.6", "--client-service-type", "LoadBalancer", "--client-service-class",
                        "example.com/lb", "--client-service-port", "admin=8080", "--client-service-ingress",
                        "203.0.113.7"});
  const json lb = service(ns.name(), "etcd");
  REQUIRE(lb["spec"]["type"] == "LoadBalancer");
  auto before = e2e::fingerprint(f);

  int rc = -1;
  json doc = e2e::adopt_plan(f, {"--skip-backup"}, rc);
  json plan = e2e::cluster_plan(doc, ns.name(), "etcd");
  INFO("verdicts: " << plan["verdicts"].dump(2));
  CHECK(rc == 3);
  CHECK(plan["action"] == "Error");
  const std::string b20 = message_of(plan, "B20");
  for (const char* part : {"\"etcd\"", "LoadBalancer", "example.com/lb", "203.0.113.7", "admin 8080/TCP",
                           "\"etcd-client\"", "--replace-client-service"}) {
    CHECK_MESSAGE(b20.find(part) != std::string::npos, "B20 lacks " << part);
  }
  CHECK(e2e::fingerprint(f) == before);
  // --apply refuses the blocked cluster too: the Service stays.
  auto blocked = e2e::apply(f, {"--skip-backup"});
  CHECK(blocked.rc == 3);
  CHECK(service(ns.name(), "etcd")["metadata"]["uid"] == lb["metadata"]["uid"]);

  json accepted = e2e::cluster_plan(e2e::adopt_plan(f, {"--skip-backup", "--replace-client-service"}, rc), ns.name(), "etcd");
  CHECK(rc == 0);
  CHECK(accepted["action"] == "Adopt");
  CHECK_FALSE(e2e::has_verdict(accepted, "B20"));
  CHECK(message_of(accepted, "W21").find("203.0.113.7") != std::string::npos);
  auto text = plan_text(f, {"--replace-client-service"});
  CHECK(text.out.find("replace the client Service etcd, a LoadBalancer Service") != std::string::npos);
  CHECK(text.out.find("its external address is released (--replace-client-service)") != std::string::npos);

  e2e::Before b = e2e::record(f);
  auto r = e2e::apply(f, {"--skip-backup", "--replace-client-service"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  e2e::check_adopted(f, b, false);
  json headless = service(ns.name(), "etcd");
  CHECK(headless["metadata"]["uid"] != lb["metadata"]["uid"]);
  CHECK(headless["spec"]["clusterIP"] == "None");
  CHECK(headless["spec"].value("type", "") == "ClusterIP");
}

TEST_CASE("a NodePort client Service named <c> with external IPs blocks too (B20)") {
  e2e::Namespace ns("e2e-edge-np");
  e2e::LegacyFixture f(ns.name(), "etcd",
                       {"--version", "3.5", "--client-service-type", "NodePort", "--client-service-external-ip",
                        "198.51.100.4"});
  int rc = -1;
  json plan = e2e::cluster_plan(e2e::adopt_plan(f, {"--skip-backup"}, rc), ns.name(), "etcd");
  CHECK(rc == 3);
  const std::string b20 = message_of(plan, "B20");
  INFO(b20);
  CHECK(b20.find("a NodePort Service") != std::string::npos);
  CHECK(b20.find("198.51.100.4") != std::string::npos);
  CHECK(b20.find("node port") != std::string::npos);
}

TEST_CASE("a LoadBalancer client Service under its own name is kept as it is and owned by the EtcdCluster (N14)") {
  e2e::Namespace ns("e2e-edge-kept");
  e2e::LegacyFixture f(ns.name(), "etcd",
                       {"--version", "3.6", "--tls", "--client-service", "etcd-lb", "--client-service-type",
                        "LoadBalancer", "--client-service-class", "example.com/lb", "--client-service-port",
                        "admin=8080", "--client-service-ingress", "203.0.113.8"});
  const json lb = service(ns.name(), "etcd-lb");
  int rc = -1;
  json plan = e2e::cluster_plan(e2e::adopt_plan(f, {"--skip-backup"}, rc), ns.name(), "etcd");
  CHECK(rc == 0);
  const std::string n14 = message_of(plan, "N14");
  INFO(n14);
  for (const char* part : {"\"etcd-lb\"", "LoadBalancer", "example.com/lb", "203.0.113.8", "kept as it is",
                           "collected with it"}) {
    CHECK_MESSAGE(n14.find(part) != std::string::npos, "N14 lacks " << part);
  }
  CHECK(plan_text(f).out.find("Service etcd-lb, a LoadBalancer Service") != std::string::npos);

  e2e::Before b = e2e::record(f);
  auto r = e2e::apply(f, {"--skip-backup"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  e2e::check_adopted(f, b, false);
  const json kept = service(ns.name(), "etcd-lb");
  CHECK(kept["metadata"]["uid"] == lb["metadata"]["uid"]);
  CHECK(kept["spec"] == lb["spec"]);  // type, class, ports and node ports, cluster IP
  CHECK(kept["status"] == lb["status"]);
  json cluster = json::parse(e2e::kubectl({"-n", ns.name(), "get", "etcdclusters.etcd-operator.cozystack.io", "etcd",
                                           "-o", "json"}));
  REQUIRE(kept["metadata"]["ownerReferences"].size() == 1);
  const json& owner = kept["metadata"]["ownerReferences"][0];
  CHECK(owner["kind"] == "EtcdCluster");
  CHECK(owner["apiVersion"] == "etcd-operator.cozystack.io/v1alpha2");
  CHECK(owner["uid"] == cluster["metadata"]["uid"]);
  CHECK(owner.value("controller", false) == false);
}

TEST_CASE("a legacy EtcdCluster rendered by a Flux HelmRelease: W22 with the fix, no Helm marks on the new "
          "objects, and verify reports the legacy object created again") {
  e2e::Namespace ns("e2e-edge-helm");
  const std::string n = ns.name();
  const std::vector<std::string> marks = {"--label", "app.kubernetes.io/managed-by=Helm", "--label",
                                          "helm.toolkit.fluxcd.io/name=tenant-etcd", "--label",
                                          "helm.toolkit.fluxcd.io/namespace=" + n, "--annotation",
                                          "meta.helm.sh/release-name=tenant-etcd", "--annotation",
                                          "meta.helm.sh/release-namespace=" + n};
  std::vector<std::string> args = {"--version", "3.6", "--tls", "--auth"};
  args.insert(args.end(), marks.begin(), marks.end());
  e2e::LegacyFixture f(n, "etcd", args);
  int rc = -1;
  json plan = e2e::cluster_plan(e2e::adopt_plan(f, {"--skip-backup"}, rc), n, "etcd");
  CHECK(rc == 0);
  const std::string w22 = message_of(plan, "W22");
  INFO(w22);
  for (const std::string& part : {"Helm release \"tenant-etcd\" in namespace \"" + n + "\"",
                                 "Flux HelmRelease \"" + n + "/tenant-etcd\"",
                                 "flux suspend helmrelease -n " + n + " tenant-etcd",
                                 std::string("etcd-operator.cozystack.io/v1alpha2"),
                                 std::string("none of Helm's or Flux's ownership labels and annotations")}) {
    CHECK_MESSAGE(w22.find(part) != std::string::npos, "W22 lacks " << part);
  }
  // The legacy object as the chart rendered it, to render it again below.
  json legacy = json::parse(e2e::kubectl({"-n", n, "get", "etcdclusters.etcd.aenix.io", "etcd", "-o", "json"}));

  e2e::Before b = e2e::record(f);
  auto r = e2e::apply(f, {"--skip-backup", "--remove-legacy-webhooks"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  for (const auto& key : metadata_keys(n)) {
    CHECK_MESSAGE(key.find("=Helm") == std::string::npos, key);
    CHECK_MESSAGE(key.find("meta.helm.sh/") == std::string::npos, key);
    CHECK_MESSAGE(key.find("helm.toolkit.fluxcd.io/") == std::string::npos, key);
  }
  wait_until([&] { return legacy_gone(n); }, std::chrono::seconds(30), "the legacy EtcdCluster to go");
  CHECK(e2e::etcd_migrate({"verify", "-n", n, "etcd"}).rc == 0);

  // The next reconcile of the release renders the legacy object again.
  json again = {{"apiVersion", "etcd.aenix.io/v1alpha1"},
                {"kind", "EtcdCluster"},
                {"metadata",
                 {{"name", "etcd"}, {"namespace", n}, {"labels", legacy["metadata"]["labels"]},
                  {"annotations", legacy["metadata"]["annotations"]}}},
                {"spec", legacy["spec"]}};
  e2e::kubectl({"create", "-f", "-"}, again.dump());
  auto v = e2e::etcd_migrate({"verify", "-n", n, "etcd", "-o", "json"});
  INFO("verify: " << v.out << v.err);
  CHECK(v.rc == 1);
  std::string detail;
  const json report = json::parse(v.out);
  for (const auto& c : report["clusters"][0]["checks"]) {
    if (c["code"] == "LEGACY") {
      CHECK(c["ok"] == false);
      detail = c["detail"].get<std::string>();
    }
  }
  CHECK(detail.find("created again after the adoption") != std::string::npos);
  CHECK(detail.find("Helm release \"tenant-etcd\"") != std::string::npos);
  CHECK(detail.find("flux suspend helmrelease -n " + n + " tenant-etcd") != std::string::npos);
  CHECK(detail.find("kubectl -n " + n + " delete etcdclusters.etcd.aenix.io etcd") != std::string::npos);
  e2e::kubectl({"-n", n, "delete", "etcdclusters.etcd.aenix.io", "etcd", "--wait=false"});
}

TEST_CASE("--remove-legacy-webhooks: the webhooks go before the orphan delete, and the legacy EtcdCluster at once") {
  e2e::Namespace ns("e2e-edge-hooks");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  const auto& hooks = f.info()["webhooks"];
  auto r = e2e::apply(f, {"--skip-backup", "--remove-legacy-webhooks", "-o", "json"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  json result = json::parse(r.out)["result"];
  CHECK(result["clusters"][0]["outcome"] == "Adopted");
  CHECK(result["legacyWebhooksRemoved"].size() == 2);
  CHECK(result["legacyTerminating"].empty());
  CHECK_FALSE(result.contains("endWait"));
  for (const auto& h : hooks) {
    CHECK(e2e::kubectl_result({"get", "mutatingwebhookconfigurations,validatingwebhookconfigurations", "-o", "name"})
              .out.find(h.get<std::string>()) == std::string::npos);
  }
  // The garbage collector's first try succeeds: seconds, not its backoff.
  const auto start = std::chrono::steady_clock::now();
  wait_until([&] { return legacy_gone(ns.name()); }, std::chrono::seconds(20),
                  "the legacy EtcdCluster to go once the webhooks are gone");
  MESSAGE("legacy EtcdCluster gone after "
          << std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count()
          << " ms");
  auto v = e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd"});
  CHECK(v.rc == 0);
  CHECK(v.out.find("the legacy EtcdCluster is gone") != std::string::npos);
}

TEST_CASE("webhooks kept: the result says how to end the wait, verify shows for how long it is Terminating, "
          "and following it ends the wait") {
  e2e::Namespace ns("e2e-edge-wait");
  const std::string n = ns.name();
  e2e::LegacyFixture f(n, "etcd", {"--version", "3.6"});
  const std::string mutating = "mutatingwebhookconfigurations/" + f.info()["webhooks"][0].get<std::string>();
  const std::string validating = "validatingwebhookconfigurations/" + f.info()["webhooks"][1].get<std::string>();
  auto r = e2e::apply(f, {"--skip-backup"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("legacy EtcdClusters left Terminating: " + n + "/etcd") != std::string::npos);
  CHECK(r.out.find("kubectl delete " + mutating + " " + validating) != std::string::npos);
  const std::string drop = "kubectl -n " + n + " patch etcdclusters.etcd.aenix.io etcd --type=json -p "
                           "'[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'";
  CHECK(r.out.find(drop) != std::string::npos);

  std::this_thread::sleep_for(std::chrono::seconds(2));
  auto v = e2e::etcd_migrate({"verify", "-n", n, "etcd", "-o", "json"});
  INFO("verify: " << v.out << v.err);
  CHECK(v.rc == 0);
  json c = json::parse(v.out)["clusters"][0];
  REQUIRE(c.contains("legacyTerminating"));
  CHECK(c["legacyTerminating"]["seconds"].get<long long>() >= 1);
  CHECK(c["legacyTerminating"]["since"].is_string());
  auto text = e2e::etcd_migrate({"verify", "-n", n, "etcd"});
  CHECK(text.out.find("the legacy EtcdCluster has been Terminating for ") != std::string::npos);
  CHECK(text.out.find(mutating) != std::string::npos);

  // As the result says: delete the webhooks, then drop the finalizer (the
  // collector's next retry may have been quicker: then it is gone already).
  e2e::kubectl({"delete", mutating, validating});
  auto patched = e2e::kubectl_result({"-n", n, "patch", "etcdclusters.etcd.aenix.io", "etcd", "--type=json", "-p",
                                      R"([{"op":"remove","path":"/metadata/finalizers"}])"});
  CHECK_MESSAGE((patched.rc == 0 || patched.err.find("NotFound") != std::string::npos), patched.err);
  wait_until([&] { return legacy_gone(n); }, std::chrono::seconds(20), "the legacy EtcdCluster to go");
  // Nothing the adoption moved was collected with it.
  CHECK(e2e::etcd_migrate({"verify", "-n", n, "etcd"}).rc == 0);
  CHECK(e2e::kubectl_result({"-n", n, "get", "service", "etcd-headless"}).rc == 0);
  for (const char* pod : {"etcd-0", "etcd-1", "etcd-2"}) CHECK(e2e::kubectl_result({"-n", n, "get", "pod", pod}).rc == 0);
}

TEST_CASE("a fully blocked --apply says nothing about Terminating legacy objects; a plan without a legacy PDB names none") {
  e2e::Namespace ns("e2e-edge-blocked");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--empty-dir"});
  auto r = e2e::apply(f, {"--skip-backup"});
  INFO(r.out << r.err);
  CHECK(r.rc == 3);
  CHECK(r.out.find("0 adopted, 0 already adopted, 1 blocked") != std::string::npos);
  CHECK(r.out.find("Terminating") == std::string::npos);
  CHECK(r.out.find("legacy webhooks") == std::string::npos);

  e2e::Namespace ns2("e2e-edge-pdb");
  e2e::LegacyFixture plain(ns2.name(), "etcd", {"--version", "3.6"});
  auto text = plan_text(plain);
  CHECK(text.rc == 0);
  CHECK(text.out.find("and ConfigMap etcd-cluster-state\n") != std::string::npos);
  CHECK(text.out.find("PodDisruptionBudget") == std::string::npos);
  e2e::Namespace ns3("e2e-edge-pdb2");
  e2e::LegacyFixture with_pdb(ns3.name(), "etcd", {"--version", "3.6", "--pdb"});
  CHECK(plan_text(with_pdb).out.find("ConfigMap etcd-cluster-state and PodDisruptionBudget etcd") != std::string::npos);
}
