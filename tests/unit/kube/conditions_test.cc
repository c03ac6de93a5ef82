#include "kube/conditions.h"

#include <doctest/doctest.h>

using nlohmann::json;

TEST_CASE("condition_true reads the condition of that type and nothing else") {
  CHECK(kube::condition_true(json::parse(R"({"status": {"conditions": [
    {"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "True"}]}})"), "Ready"));
  CHECK_FALSE(kube::condition_true(json::parse(R"({"status": {"conditions": [
    {"type": "ContainersReady", "status": "True"}, {"type": "Ready", "status": "False"}]}})"), "Ready"));
  CHECK_FALSE(kube::condition_true(json::parse(R"({"status": {"conditions": [{"type": "PodScheduled", "status": "True"}]}})"), "Ready"));
  CHECK_FALSE(kube::condition_true(json::parse(R"({"status": {"phase": "Pending"}})"), "Ready"));
  CHECK_FALSE(kube::condition_true(json::parse(R"({"status": {"conditions": null}})"), "Ready"));
  CHECK_FALSE(kube::condition_true(json::object(), "Ready"));
  CHECK(kube::condition_true(json::parse(R"({"status": {"conditions": [{"type": "Complete", "status": "True"}]}})"), "Complete"));
}

TEST_CASE("condition_status gives the status as written, empty when absent or of the wrong type") {
  CHECK(kube::condition_status(json::parse(R"({"status": {"conditions": [{"type": "Ready", "status": "Unknown"}]}})"), "Ready") == "Unknown");
  // The first entry of a type decides, as kubectl wait reads it.
  CHECK(kube::condition_status(json::parse(R"({"status": {"conditions": [
    {"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}]}})"), "Ready") == "False");
  CHECK(kube::condition_status(json::parse(R"({"status": {"conditions": [{"type": "Ready", "status": true}]}})"), "Ready").empty());
  CHECK(kube::condition_status(json::parse(R"({"status": {"conditions": [{"type": 1, "status": "True"}, "x"]}})"), "Ready").empty());
  CHECK(kube::condition_status(json::parse(R"({"status": "Ready"})"), "Ready").empty());
  CHECK(kube::condition_status(json::parse(R"([1, 2])"), "Ready").empty());
}
