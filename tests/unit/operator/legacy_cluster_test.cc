#include "operator/legacy_cluster.h"

#include <doctest/doctest.h>

#include <string>

using nlohmann::json;

TEST_CASE("a legacy object that is not an object reads as an empty cluster (found by fuzz-legacy-translate)") {
  // The fuzzer's input: JSON parsing stops at the NUL, leaving the number 2.
  const std::string input("2\0\0\0\0\0\0\0ession\":{\n \"apiVer \"etcdsion\".ae", 40);
  auto parsed = json::parse(input.begin(), input.end(), nullptr, false);
  for (const json& j : {parsed, json(2), json::array(), json("x"), json()}) {
    auto c = op::LegacyCluster::from(j);
    CHECK(c.name.empty());
    CHECK(c.metadata == json::object());
    CHECK(c.spec == json::object());
  }
}

TEST_CASE("metadata or spec that is not an object reads as empty") {
  auto c = op::LegacyCluster::from(json::parse(R"({"metadata":5,"spec":[1]})"));
  CHECK(c.metadata == json::object());
  CHECK(c.spec == json::object());
  CHECK(c.headless_service() == "-headless");
}

TEST_CASE("the names come from metadata and spec") {
  auto c = op::LegacyCluster::from(json::parse(
      R"({"metadata":{"name":"etcd","namespace":"a","uid":"u"},"spec":{"replicas":3}})"));
  CHECK(c.name == "etcd");
  CHECK(c.ns == "a");
  CHECK(c.uid == "u");
  CHECK(c.headless_service() == "etcd-headless");
  CHECK_FALSE(c.deleting);
}

TEST_CASE("a container whose name is not a string is not the etcd container (found by fuzz-legacy-translate)") {
  // The fuzzer's input, reduced: a golden case's podTemplate with the
  // container's name an object.
  auto c = op::LegacyCluster::from(json::parse(
      R"({"metadata":{"name":"etcd"},"spec":{"podTemplate":{"spec":{"containers":[{"name":{"x":1}},{"name":"etcd","image":"i"}]}}}})"));
  const json* etcd = c.etcd_container();
  REQUIRE(etcd != nullptr);
  CHECK((*etcd)["image"] == "i");
  auto none = op::LegacyCluster::from(json::parse(R"({"spec":{"podTemplate":{"spec":{"containers":[{"name":5}]}}}})"));
  CHECK(none.etcd_container() == nullptr);
}
