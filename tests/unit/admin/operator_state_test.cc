#include "admin/operator_state.h"

#include <doctest/doctest.h>

#include "support.h"

using nlohmann::json;

namespace {

using unit_test::utc;

json lease(const std::string& holder, const std::string& renew, int duration) {
  return {{"spec", {{"holderIdentity", holder}, {"renewTime", renew}, {"leaseDurationSeconds", duration}}}};
}

json deployment(int ready, const std::string& watch = "", bool as_arg = false, int replicas = 1) {
  json c = {{"name", "manager"}};
  if (!watch.empty()) {
    if (as_arg) {
      c["args"] = json::array({"--leader-elect", "--watch-namespace=" + watch});
    } else {
      c["env"] = json::array({{{"name", "WATCH_NAMESPACE"}, {"value", watch}}});
    }
  }
  return {{"spec", {{"replicas", replicas}, {"template", {{"spec", {{"containers", json::array({c})}}}}}}},
          {"status", {{"readyReplicas", ready}}}};
}

}  // namespace

TEST_CASE("a held Lease within its duration (plus 5 s of skew) means active") {
  auto now = utc(2026, 1, 1, 12, 0, 0);
  CHECK(admin::judge_operator(lease("op-1", "2026-01-01T11:59:50.000000Z", 15), json(), "ns", now).active);
  CHECK(admin::judge_operator(lease("op-1", "2026-01-01T11:59:41.000000Z", 15), json(), "ns", now).active);
  CHECK_FALSE(admin::judge_operator(lease("op-1", "2026-01-01T11:59:39.000000Z", 15), json(), "ns", now).active);
  CHECK_FALSE(admin::judge_operator(lease("", "2026-01-01T11:59:59.000000Z", 15), json(), "ns", now).active);
}

TEST_CASE("ready replicas mean active; none and no Lease mean inactive") {
  auto now = utc(2026, 1, 1, 12, 0, 0);
  CHECK(admin::judge_operator(json(), deployment(1), "ns", now).active);
  auto s = admin::judge_operator(json(), deployment(0), "ns", now);
  CHECK_FALSE(s.active);
  CHECK(s.reason == "no ready operator replica and no live leader Lease");
  CHECK(admin::judge_operator(json(), json(), "ns", now).reason == "no operator Deployment and no live leader Lease");
}

TEST_CASE("an operator watching other namespaces does not manage this one") {
  auto now = utc(2026, 1, 1, 12, 0, 0);
  CHECK_FALSE(admin::judge_operator(json(), deployment(1, "a,b"), "ns", now).active);
  CHECK(admin::judge_operator(json(), deployment(1, "a,ns"), "ns", now).active);
  CHECK_FALSE(admin::judge_operator(json(), deployment(1, "a", true), "ns", now).active);
  CHECK(admin::judge_operator(json(), deployment(1, "ns", true), "ns", now).active);
}

TEST_CASE("an operator scaled to 0 is said to be scaled down, before its namespace filter") {
  auto now = utc(2026, 1, 1, 12, 0, 0);
  auto down = admin::judge_operator(json(), deployment(0, "", false, 0), "ns", now);
  CHECK_FALSE(down.active);
  CHECK(down.reason == "the operator is scaled down (its Deployment has spec.replicas 0)");
  auto elsewhere = admin::judge_operator(json(), deployment(0, "a,b", false, 0), "ns", now);
  CHECK_FALSE(elsewhere.active);
  CHECK(elsewhere.reason == down.reason);
  // Just scaled down, its Lease still live: the old process may still act.
  CHECK(admin::judge_operator(lease("op-1", "2026-01-01T11:59:55.000000Z", 15), deployment(0, "", false, 0), "ns", now)
            .active);
}
