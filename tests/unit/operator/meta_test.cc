#include "operator/meta.h"

#include <doctest/doctest.h>

#include "operator/names.h"

using nlohmann::json;

TEST_CASE("labels, annotations and the controller reference, keys with '/' as they are") {
  json pod = json::parse(R"({"metadata": {
      "labels": {"etcd-operator.cozystack.io/role": "voter", "odd": 3},
      "annotations": {"cli.etcd-operator.cozystack.io/replicas-before-break-glass": "2"},
      "ownerReferences": [{"kind": "Node", "uid": "n"}, {"kind": "EtcdMember", "uid": "m", "controller": true}]}})");
  CHECK(op::label(pod, op::kLabelRole) == "voter");
  CHECK(op::annotation(pod, op::kAnnReplicasBeforeBreakGlass) == "2");
  CHECK(op::label(pod, "odd").empty());  // not a string
  CHECK(op::label(pod, "absent").empty());
  CHECK(op::annotation(json::object(), op::kAnnReplicasBeforeBreakGlass).empty());
  CHECK(op::annotation(json::parse(R"({"metadata": {"annotations": null}})"), "x").empty());
  const json* c = op::controller_of(pod);
  REQUIRE(c != nullptr);
  CHECK((*c)["uid"] == "m");
  CHECK(op::controller_of(json::parse(R"({"metadata": {"ownerReferences": [{"uid": "n"}]}})")) == nullptr);
  CHECK(op::controller_of(json::object()) == nullptr);
}

TEST_CASE("the consent to delete an EtcdMember: the annotation set to \"true\", nothing else") {
  json patch = op::allow_deletion_patch();
  CHECK(patch == json::parse(R"({"metadata": {"annotations": {"etcd-operator.cozystack.io/allow-deletion": "true"}}})"));
  CHECK(op::allows_deletion(patch));
  CHECK_FALSE(op::allows_deletion(json::object()));
  CHECK_FALSE(op::allows_deletion(
      json::parse(R"({"metadata": {"annotations": {"etcd-operator.cozystack.io/allow-deletion": "yes"}}})")));
}
