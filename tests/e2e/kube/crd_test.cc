// Objects of both CRD groups, validated by the real CRD schemas: a CEL rule
// of the v1alpha2 EtcdCluster and an OpenAPI bound of the v1alpha1 one come
// back as readable one-line errors.
#include <doctest/doctest.h>

#include "helpers.h"

using nlohmann::json;

namespace {
const kube::Resource v2{"etcd-operator.cozystack.io", "v1alpha2", "etcdclusters", "EtcdCluster", true};
const kube::Resource v2members{"etcd-operator.cozystack.io", "v1alpha2", "etcdmembers", "EtcdMember", true};
const kube::Resource v1{"etcd.aenix.io", "v1alpha1", "etcdclusters", "EtcdCluster", true};
}  // namespace

TEST_CASE("v1alpha2 EtcdCluster: created; a CEL violation is one readable line") {
  e2e::Namespace ns("kube-crd2");
  auto c = kube_e2e::admin();
  json ok = {{"apiVersion", v2.api_version()}, {"kind", "EtcdCluster"}, {"metadata", {{"name", "good"}}},
             {"spec", {{"version", "3.6.11"}}}};
  auto created = c->create(v2, ns.name(), ok);
  REQUIRE_MESSAGE(created.ok(), created.error().one_line());
  CHECK((*created)["spec"]["replicas"] == 3);  // the schema's default

  json bad = ok;
  bad["metadata"]["name"] = "bad";
  bad["spec"]["replicas"] = 0;
  bad["spec"]["storage"] = {{"medium", "Memory"}, {"size", "1Gi"}};
  auto refused = c->create(v2, ns.name(), bad);
  REQUIRE_FALSE(refused.ok());
  const auto& e = refused.error();
  CHECK(e.reason == "Invalid");
  CHECK(e.status == 422);
  CHECK(e.kind == base::ErrorKind::Failed);
  REQUIRE(e.causes.size() >= 1);
  std::string line = e.one_line();
  MESSAGE(line);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.find("etcdclusters.etcd-operator.cozystack.io \"" + ns.name() + "/bad\": cannot create: invalid: spec:") == 0);
  CHECK(line.find("spec.replicas=0 with spec.storage.medium=Memory is unsupported") != std::string::npos);

  // Also refused in a dry-run, so a plan can be checked before it runs.
  auto dry = c->create(v2, ns.name(), bad, {true, ""});
  REQUIRE_FALSE(dry.ok());
  CHECK(dry.error().reason == "Invalid");

  // An immutable-field rule on update (transition rule).
  auto live = *c->get(v2, ns.name(), "good");
  live["spec"]["tls"] = json::object();
  auto imm = c->replace(v2, ns.name(), live);
  REQUIRE_FALSE(imm.ok());
  CHECK(imm.error().reason == "Invalid");
  MESSAGE(imm.error().one_line());
}

TEST_CASE("v1alpha2 EtcdMember and v1alpha1 EtcdCluster: created; a schema bound is refused") {
  e2e::Namespace ns("kube-crd1");
  auto c = kube_e2e::admin();
  json legacy = {{"apiVersion", v1.api_version()}, {"kind", "EtcdCluster"}, {"metadata", {{"name", "l"}}},
                 {"spec", {{"replicas", 3}, {"storage", {{"emptyDir", json::object()}}}}}};
  auto created = c->create(v1, ns.name(), legacy);
  REQUIRE_MESSAGE(created.ok(), created.error().one_line());
  auto listed = c->list(v1, ns.name());
  REQUIRE(listed.ok());
  CHECK((*listed)["items"].size() == 1);

  json bad = legacy;
  bad["metadata"]["name"] = "neg";
  bad["spec"]["replicas"] = -1;
  auto refused = c->create(v1, ns.name(), bad);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == "Invalid");
  MESSAGE(refused.error().one_line());
  CHECK(refused.error().one_line().find("spec.replicas") != std::string::npos);

  json missing = legacy;
  missing["metadata"]["name"] = "nostorage";
  missing["spec"].erase("storage");
  auto req = c->create(v1, ns.name(), missing);
  REQUIRE_FALSE(req.ok());
  CHECK(req.error().one_line().find("spec.storage: Required value") != std::string::npos);

  auto members = c->list(v2members, ns.name());
  REQUIRE_MESSAGE(members.ok(), members.error().one_line());
}
