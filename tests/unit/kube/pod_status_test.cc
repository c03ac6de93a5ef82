#include "kube/pod_status.h"

#include <doctest/doctest.h>

TEST_CASE("pod_ready reads the Ready condition and nothing else") {
  using nlohmann::json;
  CHECK(kube::pod_ready(json::parse(R"({"status": {"conditions": [
    {"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}]}})")));
  CHECK_FALSE(kube::pod_ready(json::parse(R"({"status": {"conditions": [
    {"type": "ContainersReady", "status": "True"}, {"type": "Ready", "status": "False"}]}})")));
  CHECK_FALSE(kube::pod_ready(json::parse(R"({"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}})")));
  CHECK_FALSE(kube::pod_ready(json::parse(R"({"status": {"phase": "Pending"}})")));
  CHECK_FALSE(kube::pod_ready(json::parse(R"({"status": {"conditions": null}})")));
  CHECK_FALSE(kube::pod_ready(json::object()));
}
