#include "kube/query.h"

#include <doctest/doctest.h>

#include "kube/resource.h"

TEST_CASE("paths: core and group APIs, namespaced and cluster-scoped, subresources, escaping") {
  using namespace kube::resources;
  CHECK(pods.path("ns", "p") == "/api/v1/namespaces/ns/pods/p");
  CHECK(pods.path("") == "/api/v1/pods");
  CHECK(statefulsets.path("ns", "s", "scale") == "/apis/apps/v1/namespaces/ns/statefulsets/s/scale");
  CHECK(namespaces.path("ignored", "n") == "/api/v1/namespaces/n");
  CHECK(pods.path("ns", "a b") == "/api/v1/namespaces/ns/pods/a%20b");
  CHECK(deployments.group_resource() == "deployments.apps");
  CHECK(pods.describe("ns", "p") == "pods \"ns/p\"");
  CHECK(namespaces.describe("", "n") == "namespaces \"n\"");
  CHECK(poddisruptionbudgets.api_version() == "policy/v1");
}

TEST_CASE("list options: selectors escaped, limit and continue") {
  kube::ListOptions o;
  o.label_selector = "app in (a,b),tier!=x";
  o.field_selector = "metadata.name=c";
  o.limit = 50;
  o.continue_token = "abc=";
  CHECK(kube::build_query(kube::list_params(o)) ==
        "?labelSelector=app%20in%20%28a%2Cb%29%2Ctier%21%3Dx&fieldSelector=metadata.name%3Dc&limit=50&continue=abc%3D");
  CHECK(kube::build_query(kube::list_params({})) == "");
}

TEST_CASE("write, patch and delete options") {
  CHECK(kube::build_query(kube::write_params({true, "mgr"})) == "?dryRun=All&fieldManager=mgr");
  kube::PatchOptions p;
  p.field_manager = "m";
  p.force = true;
  CHECK(kube::build_query(kube::patch_params(kube::PatchType::Apply, p)) == "?fieldManager=m&force=true");
  CHECK(kube::build_query(kube::patch_params(kube::PatchType::Merge, p)) == "?fieldManager=m");
  CHECK(std::string(kube::patch_content_type(kube::PatchType::Strategic)) == "application/strategic-merge-patch+json");
  CHECK(std::string(kube::patch_content_type(kube::PatchType::Apply)) == "application/apply-patch+yaml");
  kube::DeleteOptions d;
  d.propagation = kube::Propagation::Orphan;
  d.precondition_uid = "u";
  d.precondition_resource_version = "7";
  d.dry_run = true;
  auto b = kube::delete_body(d);
  CHECK(b["propagationPolicy"] == "Orphan");
  CHECK(b["preconditions"]["uid"] == "u");
  CHECK(b["preconditions"]["resourceVersion"] == "7");
  CHECK(kube::build_query(kube::delete_params(d)) == "?dryRun=All");
}
