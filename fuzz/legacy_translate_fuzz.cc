// A legacy etcd.aenix.io/v1alpha1 EtcdCluster (JSON as the apiserver returns
// it) through the whole pure adoption plan: the typed view, the spec
// translation and the plan's objects. The live facts are those of a healthy
// three-member cluster named after the object.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "migrate/cluster_plan.h"
#include "operator/legacy_cluster.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto j = nlohmann::json::parse(data, data + size, nullptr, false);
  if (j.is_discarded()) return 0;
  auto legacy = op::LegacyCluster::from(j);
  migrate::ClusterFacts facts;
  facts.cluster_id = "cdf818194e3a8c32";
  const char* ids[] = {"8e9e05c52164694d", "1c0ddf9e0d2a7c2b", "00000000000000ff"};
  for (int i = 0; i < 3; ++i) {
    std::string m = legacy.name + "-" + std::to_string(i);
    facts.members.push_back({m, ids[i], "https://" + m + "." + legacy.headless_service() + ":2380", false});
    facts.pods[m] = migrate::PodFact{"uid-" + m, true, true, false};
    facts.pvcs[m] = migrate::PvcFact{true, "", "", "", "pv-" + m};
  }
  migrate::PlanOptions options;
  auto plan = migrate::plan_cluster(legacy, facts, options);
  (void)migrate::to_json(plan).dump();
  return 0;
}
