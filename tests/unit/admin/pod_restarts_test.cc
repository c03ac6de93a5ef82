#include "admin/pod_restarts.h"

#include <doctest/doctest.h>

using json = nlohmann::json;

namespace {

// A Pod whose etcd container (beside a sidecar) has restarted `count` times
// and last stopped with `reason`.
json crashing_pod(long long count, const std::string& reason, bool ready) {
  return json::parse(R"({"metadata": {"name": "c-aaaaa"}, "status": {"containerStatuses": [
      {"name": "sidecar", "ready": true, "restartCount": 9},
      {"name": "etcd", "ready": )" + std::string(ready ? "true" : "false") + R"(, "restartCount": )" +
                     std::to_string(count) + R"(,
       "state": {"waiting": {"reason": "CrashLoopBackOff"}},
       "lastState": {"terminated": {"reason": ")" + reason + R"(", "exitCode": 1,
                                    "finishedAt": "2026-12-07T09:00:00Z"}}}]}})");
}

}  // namespace

TEST_CASE("the etcd container's restarts are read, not a sidecar's") {
  auto r = admin::etcd_container_restarts(crashing_pod(3, "Error", false));
  CHECK(r.found);
  CHECK_FALSE(r.ready);
  CHECK(r.count == 3);
  CHECK(r.waiting == "CrashLoopBackOff");
  CHECK(r.last_reason == "Error");
  CHECK(r.last_exit == 1);
  CHECK(admin::restarting(r));
  CHECK_FALSE(admin::oom_killed(r));
  CHECK(admin::oom_killed(admin::etcd_container_restarts(crashing_pod(6, "OOMKilled", false))));
  CHECK(admin::describe_restarts(r) ==
        "restarted 3 times (last exit: Error, code 1, at 2026-12-07T09:00:00Z; now CrashLoopBackOff)");
}

TEST_CASE("a container back and Ready after a restart is not restarting") {
  auto r = admin::etcd_container_restarts(crashing_pod(1, "Error", true));
  CHECK(r.count == 1);
  CHECK_FALSE(admin::restarting(r));
}

TEST_CASE("a Pod without container statuses, or of another shape, reports nothing") {
  CHECK_FALSE(admin::etcd_container_restarts(json::parse(R"({"status": {}})")).found);
  CHECK_FALSE(admin::etcd_container_restarts(json::parse(R"({"status": {"containerStatuses": "x"}})")).found);
  auto odd = admin::etcd_container_restarts(
      json::parse(R"({"status": {"containerStatuses": [{"name": "etcd", "restartCount": "many"}]}})"));
  CHECK(odd.found);
  CHECK(odd.count == 0);
  CHECK_FALSE(admin::restarting(odd));
  CHECK(admin::describe_restarts(odd) == "restarted 0 times");
}
