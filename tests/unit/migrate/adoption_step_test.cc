#include "migrate/adoption_step.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

using migrate::AdoptionStep;

namespace {
std::vector<std::string> names(const std::vector<AdoptionStep>& steps) {
  std::vector<std::string> out;
  for (auto s : steps) out.push_back(migrate::step_name(s));
  return out;
}
}  // namespace

TEST_CASE("the pipeline's order: backup before anything changes owner, pods re-owned before the leftovers go") {
  CHECK(names(migrate::pipeline_steps()) ==
        std::vector<std::string>{"prerequisites", "root-credentials", "auth", "backup", "etcdcluster", "etcdmembers",
                                 "headless-service", "statefulset", "pods-and-pvcs", "legacy-leftovers", "service"});
}

TEST_CASE("the legacy EtcdCluster's delete is not part of the pipeline: it runs once the whole run got there") {
  const auto& p = migrate::pipeline_steps();
  CHECK(std::find(p.begin(), p.end(), AdoptionStep::LegacyEtcdCluster) == p.end());
  CHECK(std::string(migrate::step_name(AdoptionStep::LegacyEtcdCluster)) == "legacy-etcdcluster");
}

TEST_CASE("every adoption step has a name of its own") {
  std::set<std::string> seen;
  for (int i = 0; i <= static_cast<int>(AdoptionStep::LegacyEtcdCluster); ++i) {
    std::string n = migrate::step_name(static_cast<AdoptionStep>(i));
    CHECK(n != "unknown");
    CHECK(seen.insert(n).second);
  }
}
