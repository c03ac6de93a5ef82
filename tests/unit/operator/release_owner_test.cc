#include "operator/release_owner.h"

#include <doctest/doctest.h>

using nlohmann::json;

TEST_CASE("a Helm release is read from managed-by and the meta.helm.sh annotations") {
  json cr = json::parse(R"({"metadata": {"name": "etcd", "namespace": "tenant-a",
      "labels": {"app.kubernetes.io/managed-by": "Helm"},
      "annotations": {"meta.helm.sh/release-name": "etcd", "meta.helm.sh/release-namespace": "tenant-root"}}})");
  auto o = op::release_owner(cr);
  REQUIRE(o.has_value());
  CHECK(o->helm_release == "etcd");
  CHECK(o->helm_namespace == "tenant-root");
  CHECK_FALSE(o->flux());
  CHECK(o->describe() == "Helm release \"etcd\" in namespace \"tenant-root\"");
}

TEST_CASE("Flux's labels name the HelmRelease; the release namespace defaults to the object's") {
  json cr = json::parse(R"({"metadata": {"name": "etcd", "namespace": "tenant-a",
      "labels": {"app.kubernetes.io/managed-by": "Helm", "helm.toolkit.fluxcd.io/name": "etcd",
                 "helm.toolkit.fluxcd.io/namespace": "tenant-a"},
      "annotations": {"meta.helm.sh/release-name": "etcd"}}})");
  auto o = op::release_owner(cr);
  REQUIRE(o.has_value());
  CHECK(o->helm_namespace == "tenant-a");
  CHECK(o->flux());
  CHECK(o->describe() == "Helm release \"etcd\" in namespace \"tenant-a\" (Flux HelmRelease \"tenant-a/etcd\")");
}

TEST_CASE("no marks, or another manager: no release owner") {
  CHECK_FALSE(op::release_owner(json::parse(R"({"metadata": {"name": "etcd"}})")).has_value());
  CHECK_FALSE(op::release_owner(json::parse(
                  R"({"metadata": {"labels": {"app.kubernetes.io/managed-by": "etcd-operator"}}})"))
                  .has_value());
  // An annotation alone is enough (some charts drop the label).
  auto o = op::release_owner(json::parse(R"({"metadata": {"namespace": "x",
      "annotations": {"meta.helm.sh/release-name": "r"}}})"));
  REQUIRE(o.has_value());
  CHECK(o->describe() == "Helm release \"r\" in namespace \"x\"");
}

TEST_CASE("Helm's and Flux's marks, and only those") {
  CHECK(op::is_release_mark("app.kubernetes.io/managed-by", "Helm"));
  CHECK_FALSE(op::is_release_mark("app.kubernetes.io/managed-by", "etcd-operator"));
  CHECK(op::is_release_mark("meta.helm.sh/release-name", "x"));
  CHECK(op::is_release_mark("helm.toolkit.fluxcd.io/name", "x"));
  CHECK_FALSE(op::is_release_mark("helm.sh/chart", "etcd-0.1.0"));  // informational, not ownership
  CHECK_FALSE(op::is_release_mark("app.kubernetes.io/instance", "etcd"));
}
