// The run as a whole: a fleet with a blocked cluster (exit 5, each outcome
// named), a cluster whose backup fails after auth was disabled (auth
// restored, R3, nothing re-owned, the re-run finishes), SIGINT between two
// steps (130, re-run finishes), a concurrent label writer (409s, no label
// lost), and --remove-legacy-webhooks refusing while a legacy cluster is
// left un-adopted.
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "adopt_checks.h"

using json = nlohmann::json;

TEST_CASE("fleet: 4 clusters, one blocked: the others adopted concurrently, exit 5, each outcome named") {
  e2e::Namespace ns("e2e-fleet");
  const std::vector<std::vector<std::string>> variants = {
      {"--version", "3.5"}, {"--version", "3.6", "--tls"}, {"--version", "3.6", "--empty-dir"}, {"--version", "3.4"}};
  // Fixtures share the namespace: the legacy webhooks would refuse every
  // legacy EtcdCluster after the first, so the last one registers them.
  std::vector<std::unique_ptr<e2e::LegacyFixture>> fixtures(variants.size());
  for (size_t i = variants.size(); i-- > 0;) {
    auto args = variants[i];
    if (i != 0) args.push_back("--skip-webhooks");
    fixtures[i] = std::make_unique<e2e::LegacyFixture>(ns.name(), "c" + std::to_string(i), args);
  }
  std::map<std::string, e2e::Before> before;
  for (size_t i = 0; i < fixtures.size(); ++i) {
    if (i != 2) before[fixtures[i]->name()] = e2e::record(*fixtures[i]);
  }
  int rc = -1;
  auto r = e2e::apply(*fixtures[0], {"--skip-backup", "--concurrency", "4", "-o", "json"});
  INFO(r.err);
  rc = r.rc;
  json doc = json::parse(r.out);
  std::map<std::string, std::string> outcome;
  for (const auto& c : doc["result"]["clusters"]) outcome[c["name"]] = c["outcome"];
  CHECK(outcome["c0"] == "Adopted");
  CHECK(outcome["c1"] == "Adopted");
  CHECK(outcome["c2"] == "Blocked");
  CHECK(outcome["c3"] == "Adopted");
  CHECK(rc == 5);  // some adopted, some not
  for (size_t i = 0; i < fixtures.size(); ++i) {
    if (i != 2) e2e::check_adopted(*fixtures[i], before[fixtures[i]->name()], false);
  }
  // The blocked one is untouched.
  CHECK(e2e::kubectl_result({"-n", ns.name(), "get", "statefulset", "c2"}).rc == 0);
  CHECK(e2e::kubectl_result({"-n", ns.name(), "get", "etcdclusters.etcd-operator.cozystack.io", "c2"}).rc != 0);
  CHECK(doc["result"]["summary"] == json{{"adopted", 3}, {"alreadyAdopted", 0}, {"blocked", 1}, {"failed", 0},
                                          {"interrupted", 0}});
  // A re-run: the clusters of the first run are already adopted, counted
  // apart; the text names every outcome and says once that the legacy CRDs stay.
  auto text = e2e::apply(*fixtures[0], {"--skip-backup"});
  INFO(text.out);
  CHECK(text.rc == 5);
  CHECK(text.out.find("0 adopted, 3 already adopted, 1 blocked, 0 failed, 0 interrupted") != std::string::npos);
  CHECK(text.out.find(ns.name() + "/c0: already adopted (by an earlier run)") != std::string::npos);
  size_t notices = 0;
  for (size_t at = text.out.find("The legacy CRDs are never removed"); at != std::string::npos;
       at = text.out.find("The legacy CRDs are never removed", at + 1)) {
    ++notices;
  }
  CHECK(notices == 1);
  auto again = e2e::apply(*fixtures[0], {"--skip-backup", "-o", "json"});
  json again_doc = json::parse(again.out);
  CHECK(again_doc["result"]["summary"]["alreadyAdopted"] == 3);
  CHECK(again_doc["result"]["summary"]["adopted"] == 0);
  for (const auto& c : again_doc["result"]["clusters"]) {
    CHECK(c["alreadyAdopted"] == (c["name"] != "c2"));
  }
}

TEST_CASE("a backup failing after auth was disabled: auth re-enabled (R3), nothing re-owned; the re-run adopts") {
  e2e::Namespace ns("e2e-fleet-r3");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--auth"});
  std::string dir = e2e::backup_dir(f);
  // Someone else's file where this cluster's snapshot would go.
  std::string foreign = dir + "/" + ns.name() + "-etcd-migration.db";
  std::ofstream(foreign) << "not ours";
  auto before = e2e::fingerprint(f);
  auto r = e2e::apply(f, {"--backup-dir", dir});
  INFO(r.out << r.err);
  CHECK(r.rc == 1);
  CHECK(r.out.find("R3") != std::string::npos);
  CHECK(r.out.find("re-enabled") != std::string::npos);
  auto status = f.etcdctl({"auth", "status"});
  CHECK(status.out.find("Authentication Status: true") != std::string::npos);
  json pod = json::parse(e2e::kubectl({"-n", ns.name(), "get", "pod", "etcd-0", "-o", "json"}));
  CHECK(pod["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet");
  CHECK(e2e::kubectl_result({"-n", ns.name(), "get", "etcdclusters.etcd-operator.cozystack.io", "etcd"}).rc != 0);
  std::filesystem::remove(foreign);
  auto again = e2e::apply(f, {"--backup-dir", dir});
  INFO(again.out << again.err);
  CHECK(again.rc == 0);
  CHECK(e2e::etcd_migrate({"verify", "-n", ns.name()}).rc == 0);
}

TEST_CASE("SIGINT between two steps: exit 130 naming the cluster to re-run; SIGTERM 143; the re-run finishes") {
  e2e::Namespace ns("e2e-fleet-int");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  auto before = e2e::record(f);
  auto r = e2e::apply(f, {"--skip-backup"}, {{"ETCD_MIGRATE_TEST_KILL_AFTER", "etcdmembers"}, {"ETCD_MIGRATE_TEST_SIGNAL", "INT"}});
  INFO(r.out << r.err);
  CHECK(r.rc == 130);
  CHECK(r.out.find("Interrupted") != std::string::npos);
  CHECK(r.out.find("re-run") != std::string::npos);
  // Stopped after the EtcdMembers: the StatefulSet is still there.
  CHECK(e2e::kubectl_result({"-n", ns.name(), "get", "statefulset", "etcd"}).rc == 0);
  auto t = e2e::apply(f, {"--skip-backup"}, {{"ETCD_MIGRATE_TEST_KILL_AFTER", "statefulset"}, {"ETCD_MIGRATE_TEST_SIGNAL", "TERM"}});
  CHECK(t.rc == 143);
  auto done = e2e::apply(f, {"--skip-backup"});
  CHECK(done.rc == 0);
  e2e::check_adopted(f, before, false);
}

TEST_CASE("a concurrent writer of pod labels: no label lost, the run completes") {
  e2e::Namespace ns("e2e-fleet-labels");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6"});
  auto before = e2e::record(f);
  std::atomic<bool> stop{false};
  std::atomic<int> writes{0};
  std::thread writer([&] {
    for (int i = 0; !stop; ++i) {
      for (const char* pod : {"etcd-0", "etcd-1", "etcd-2"}) {
        auto r = e2e::kubectl_result({"-n", ns.name(), "label", "--overwrite", "pod", pod, "e2e/writer=" + std::to_string(i)});
        if (r.rc == 0) ++writes;
      }
    }
  });
  auto r = e2e::apply(f, {"--skip-backup"});
  stop = true;
  writer.join();
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(writes > 0);
  e2e::check_adopted(f, before, false);
  for (const char* pod : {"etcd-0", "etcd-1", "etcd-2"}) {
    json p = json::parse(e2e::kubectl({"-n", ns.name(), "get", "pod", pod, "-o", "json"}));
    CHECK(p["metadata"]["labels"].contains("e2e/writer"));
  }
}

TEST_CASE("--remove-legacy-webhooks keeps them while a legacy cluster they cover is left un-adopted") {
  e2e::Namespace a("e2e-fleet-hooks-a");
  e2e::Namespace b("e2e-fleet-hooks-b");
  e2e::LegacyFixture fa(a.name(), "etcd", {"--version", "3.6"});
  // The same operator coordinates: one pair of webhook configurations covers both namespaces.
  e2e::LegacyFixture fb(b.name(), "etcd",
                        {"--version", "3.6", "--empty-dir", "--operator-namespace", a.name() + "-op"});  // blocked: stays legacy
  REQUIRE(fb.info()["webhooks"] == fa.info()["webhooks"]);
  auto r = e2e::apply(fa, {"--skip-backup", "--remove-legacy-webhooks"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("legacy webhooks: kept: ") != std::string::npos);
  CHECK(r.out.find("also covers the legacy EtcdCluster " + b.name() + "/etcd, which is not adopted") != std::string::npos);
  // The adopted one waits behind them, and the result says how to end it.
  CHECK(r.out.find("legacy EtcdClusters left Terminating: " + a.name() + "/etcd") != std::string::npos);
  const auto& hooks = fa.info()["webhooks"];
  CHECK(e2e::kubectl_result({"get", "mutatingwebhookconfigurations", hooks[0].get<std::string>()}).rc == 0);
}
