// The text plan names only what applies: the legacy PDB only when the legacy
// operator made one, an externally reached client Service with how it is
// reached, and none of the planning's progress lines (they go to stderr); with
// --apply the legacy-CRDs paragraph comes once, and the result counts clusters
// adopted by an earlier run apart.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "migrate/apply.h"
#include "migrate/plan_text.h"

using json = nlohmann::json;

namespace {

const std::filesystem::path kCaseDir = std::filesystem::path(SOURCE_ROOT) / "tests/unit/migrate/cases";

// A plan of one cluster from a golden case (only the fields the text needs).
migrate::AdoptionPlan adoption_plan(const std::string& name, bool replace = false) {
  std::ifstream f(kCaseDir / (name + ".in.json"));
  REQUIRE(f.good());
  json c = json::parse(f);
  migrate::ClusterFacts facts;
  facts.cluster_id = c["facts"]["clusterID"];
  for (const auto& m : c["facts"]["members"]) {
    facts.members.push_back({m.value("name", ""), m.value("id", ""), m.value("peerURL", ""), m.value("isLearner", false)});
  }
  for (const auto& [n, p] : c["facts"]["pods"].items()) facts.pods[n] = {p.value("uid", ""), true, true, false};
  for (const auto& entry : c["facts"]["pvcs"].items()) facts.pvcs[entry.key()] = {true, "", "", "", ""};
  if (c["facts"].contains("serviceC")) facts.service_c = c["facts"]["serviceC"];
  if (c["facts"].contains("serviceCS")) facts.service_cs = c["facts"]["serviceCS"];
  migrate::PlanOptions o;
  o.backup_configured = true;
  o.replace_client_service = replace;
  migrate::AdoptionPlan plan;
  plan.found_clusters = 1;
  plan.gate.skipped = true;
  plan.clusters.push_back(migrate::plan_cluster(op::LegacyCluster::from(c["legacy"]), facts, o));
  plan.inspected.push_back({"tenant-a", "etcd", true, facts.cluster_id, 3, false});
  return plan;
}

}  // namespace

TEST_CASE("the planning's progress lines are not part of the plan text") {
  auto plan = adoption_plan("01-defaults");
  std::string text = migrate::plan_text(plan);
  CHECK(text.rfind("EtcdCluster tenant-a/etcd: Adopt\n", 0) == 0);
  CHECK(text.find("controller check") == std::string::npos);
  CHECK(text.find("found 1") == std::string::npos);
  CHECK(text.find("inspected") == std::string::npos);
  CHECK(migrate::gate_lines(plan) == std::vector<std::string>{"controller check skipped (--skip-controller-check)"});
  CHECK(migrate::discovery_line(plan) == "found 1 EtcdCluster(s), 0 EtcdBackup(s), 0 EtcdBackupSchedule(s) in all namespaces");
  CHECK(migrate::inspection_line(plan.inspected[0]) == "inspected tenant-a/etcd: cluster cdf818194e3a8c32, 3 members, auth off");
}

TEST_CASE("the PodDisruptionBudget is named only when the legacy operator made one") {
  CHECK(migrate::plan_text(adoption_plan("01-defaults")).find("PodDisruptionBudget") == std::string::npos);
  CHECK(migrate::plan_text(adoption_plan("01-defaults")).find("delete the StatefulSet's ControllerRevisions and ConfigMap etcd-cluster-state\n") !=
        std::string::npos);
  std::string with_pdb = migrate::plan_text(adoption_plan("24-pdb-and-restore"));
  CHECK(with_pdb.find("ControllerRevisions, ConfigMap etcd-cluster-state and PodDisruptionBudget etcd\n") != std::string::npos);
}

TEST_CASE("an externally reached client Service: the replacement step says what is released, a kept one what stays") {
  std::string replaced = migrate::plan_text(adoption_plan("38-client-lb-replace", true));
  CHECK(replaced.find("replace the client Service etcd, a LoadBalancer Service (loadBalancerClass example.com/lb; "
                      "external address 203.0.113.7;") != std::string::npos);
  CHECK(replaced.find("its external address is released (--replace-client-service)") != std::string::npos);
  std::string kept = migrate::plan_text(adoption_plan("40-client-lb-kept"));
  CHECK(kept.find("Service etcd-lb, a LoadBalancer Service") != std::string::npos);
  CHECK(kept.find("is kept as it is and owned by the new EtcdCluster") != std::string::npos);
  // Blocked without the flag: no steps at all.
  std::string blocked = migrate::plan_text(adoption_plan("37-client-lb-named-c"));
  CHECK(blocked.find("ERROR B20") != std::string::npos);
  CHECK(blocked.find("replace the client Service") == std::string::npos);
}

TEST_CASE("with --apply the legacy-CRDs paragraph is printed once, after the result; a re-run counts earlier adoptions apart") {
  auto count = [](const std::string& text) {
    size_t n = 0;
    for (size_t at = text.find("The legacy CRDs are never removed"); at != std::string::npos;
         at = text.find("The legacy CRDs are never removed", at + 1)) {
      ++n;
    }
    return n;
  };
  auto plan = adoption_plan("01-defaults");
  CHECK(count(migrate::plan_text(plan)) == 1);  // the dry-run
  plan.apply = true;
  migrate::ApplyReport report;
  report.new_controller = "etcd-operator-system/etcd-operator";
  migrate::ClusterResult now{"tenant-a", "etcd", migrate::ClusterOutcome::Adopted, {}, "", "", "", {}, false};
  migrate::ClusterResult before{"tenant-b", "etcd", migrate::ClusterOutcome::Adopted, {"adopted by an earlier run"},
                                "", "", "", {}, true};
  report.clusters = {now, before};
  const std::string out = migrate::plan_text(plan) + migrate::apply_text(report);
  CHECK(count(out) == 1);
  CHECK(out.find("EtcdCluster tenant-b/etcd: already adopted (by an earlier run)\n") != std::string::npos);
  CHECK(out.find("\n1 adopted, 1 already adopted, 0 blocked, 0 failed, 0 interrupted\n") != std::string::npos);
  auto doc = migrate::to_json(report);
  CHECK(doc["summary"]["adopted"] == 1);
  CHECK(doc["summary"]["alreadyAdopted"] == 1);
  CHECK(doc["clusters"][0]["alreadyAdopted"] == false);
  CHECK(doc["clusters"][1]["alreadyAdopted"] == true);
  CHECK(doc["clusters"][1]["outcome"] == "Adopted");
}
