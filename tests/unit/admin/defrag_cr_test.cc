#include "admin/defrag_cr.h"

#include <doctest/doctest.h>

#include "fixtures.h"
#include "operator/names.h"
#include "support.h"

using nlohmann::json;

namespace {

const auto at_2026_03_04_05_06_07 = [] { return unit_test::utc(2026, 3, 4, 5, 6, 7); };

}  // namespace

TEST_CASE("an EtcdDefrag with the default rule names its cluster and nothing else") {
  auto o = admin::defrag_cr(admin_test::cluster_target(), {}, at_2026_03_04_05_06_07());
  REQUIRE(o);
  CHECK(*o == json::parse(R"({"apiVersion": "etcd-operator.cozystack.io/v1alpha2", "kind": "EtcdDefrag",
      "metadata": {"name": "c-defrag-20260304-050607", "namespace": "ns"},
      "spec": {"clusterRef": {"name": "c"}}})"));
}

TEST_CASE("rule.all alone, or the thresholds given, as canonical quantities") {
  admin::DefragCrRequest all;
  all.name = "d";
  all.rule.all = true;
  all.free_space_given = true;  // the flag's default value stays out with all
  auto a = admin::defrag_cr(admin_test::cluster_target(), all, at_2026_03_04_05_06_07());
  REQUIRE(a);
  CHECK((*a)["metadata"]["name"] == "d");
  CHECK((*a)["spec"]["rule"] == json::parse(R"({"all": true})"));

  admin::DefragCrRequest q;
  q.rule.free_space_above = 512LL * 1024 * 1024;
  q.free_space_given = true;
  q.rule.quota_usage_above = 80;
  q.rule.min_reclaim = 64LL * 1024 * 1024;
  q.min_reclaim_given = true;
  auto b = admin::defrag_cr(admin_test::cluster_target(), q, at_2026_03_04_05_06_07());
  REQUIRE(b);
  CHECK((*b)["spec"]["rule"] ==
        json::parse(R"({"freeSpaceAbove": "512Mi", "quotaUsageAbove": "80%", "minReclaim": "64Mi"})"));
}

TEST_CASE("what EtcdDefrag's schema refuses is a usage error before anything is created") {
  admin::DefragCrRequest q;
  q.rule.quota_usage_above = 80.5;
  auto r = admin::defrag_cr(admin_test::cluster_target(), q, at_2026_03_04_05_06_07());
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == base::ErrorKind::Usage);
  admin::Target endpoints;
  auto e = admin::defrag_cr(endpoints, {}, at_2026_03_04_05_06_07());
  REQUIRE_FALSE(e);
  CHECK(e.error().kind == base::ErrorKind::Usage);
}

TEST_CASE("status.members become the rows `defrag` prints") {
  auto rows = admin::defrag_cr_rows(json::parse(R"({"status": {"phase": "Complete", "members": [
      {"name": "c-a", "role": "follower", "outcome": "Defragmented", "dbSizeBefore": 300, "dbSizeAfter": 100},
      {"name": "c-b", "role": "leader", "outcome": "Skipped", "reason": "BelowThreshold"}]}})"));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].name == "c-a");
  CHECK(rows[0].outcome == "Defragmented");
  CHECK(rows[0].before == 300);
  CHECK(rows[0].after == 100);
  CHECK(rows[1].reason == "BelowThreshold");
  CHECK_FALSE(rows[1].before.has_value());
  CHECK(admin::defrag_cr_rows(json::object()).empty());
}
