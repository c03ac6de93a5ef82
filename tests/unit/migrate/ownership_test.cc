#include <doctest/doctest.h>

#include "migrate/gate.h"
#include "migrate/ownership.h"

using json = nlohmann::json;

TEST_CASE("pods: member labels and role added, StatefulSet controller dropped, other owners kept") {
  json pod = {{"metadata",
               {{"labels", {{"app.kubernetes.io/name", "etcd"}, {"app.kubernetes.io/instance", "c"}, {"x", "y"}}},
                {"ownerReferences",
                 json::array({{{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"name", "c"}, {"uid", "s1"},
                               {"controller", true}},
                              {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "keep"}, {"uid", "k1"}}})}}}};
  json patch = migrate::reown_patch(pod, "c", "c-0", "m-uid", true);
  REQUIRE(patch.is_object());
  const json& labels = patch["metadata"]["labels"];
  CHECK_FALSE(labels.contains("app.kubernetes.io/name"));  // unchanged keys are not sent
  CHECK(labels["app.kubernetes.io/managed-by"] == "etcd-operator");
  CHECK(labels["etcd-operator.cozystack.io/cluster"] == "c");
  CHECK(labels["app.kubernetes.io/component"] == "c-0");
  CHECK(labels["etcd-operator.cozystack.io/role"] == "voter");
  const json& refs = patch["metadata"]["ownerReferences"];
  REQUIRE(refs.size() == 2);
  CHECK(refs[0]["kind"] == "ConfigMap");
  CHECK(refs[1]["kind"] == "EtcdMember");
  CHECK(refs[1]["uid"] == "m-uid");
  CHECK(refs[1]["controller"] == true);
  CHECK(refs[1]["blockOwnerDeletion"] == true);
}

TEST_CASE("PVCs get no role label; a re-owned object needs no patch (idempotent)") {
  json pvc = {{"metadata", {{"name", "data-c-0"}}}};
  json patch = migrate::reown_patch(pvc, "c", "c-0", "u", false);
  CHECK_FALSE(patch["metadata"]["labels"].contains("etcd-operator.cozystack.io/role"));
  json done = pvc;
  done["metadata"]["labels"] = patch["metadata"]["labels"];
  done["metadata"]["ownerReferences"] = patch["metadata"]["ownerReferences"];
  CHECK(migrate::reown_patch(done, "c", "c-0", "u", false).is_null());
}

TEST_CASE("the headless Service keeps unrelated owners, loses the legacy EtcdCluster's") {
  json svc = {{"metadata",
               {{"ownerReferences",
                 json::array({{{"apiVersion", "etcd.aenix.io/v1alpha1"}, {"kind", "EtcdCluster"}, {"name", "c"},
                               {"uid", "l"}, {"controller", true}},
                              {{"apiVersion", "example.com/v1"}, {"kind", "Thing"}, {"name", "t"}, {"uid", "t1"}}})}}}};
  json refs = migrate::headless_owner_references(svc, {{"c-0", "u0"}, {"c-1", "u1"}});
  REQUIRE(refs.size() == 3);
  CHECK(refs[0]["name"] == "c-0");
  CHECK(refs[0]["controller"] == false);
  CHECK(refs[0]["blockOwnerDeletion"] == false);
  CHECK(refs[1]["name"] == "c-1");
  CHECK(refs[2]["kind"] == "Thing");
  // Applying it again changes nothing.
  json again = svc;
  again["metadata"]["ownerReferences"] = refs;
  CHECK(migrate::headless_owner_references(again, {{"c-0", "u0"}, {"c-1", "u1"}}) == refs);
}

TEST_CASE("image repositories for the operator pod scan") {
  CHECK(migrate::image_repository("ghcr.io/aenix-io/etcd-operator:v0.4.2") == "ghcr.io/aenix-io/etcd-operator");
  CHECK(migrate::image_repository("registry:5000/etcd-operator@sha256:abc") == "registry:5000/etcd-operator");
  CHECK(migrate::image_repository("registry:5000/etcd-operator") == "registry:5000/etcd-operator");
  CHECK(migrate::image_repository("busybox") == "busybox");
}

TEST_CASE("the apply's re-own is a strategic merge patch: old controllers deleted by uid, ours merged, the uid kept") {
  json pod = {{"metadata",
               {{"uid", "p1"},
                {"labels", {{"app.kubernetes.io/name", "etcd"}}},
                {"ownerReferences",
                 json::array({{{"apiVersion", "apps/v1"}, {"kind", "StatefulSet"}, {"name", "c"}, {"uid", "s1"},
                               {"controller", true}},
                              {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "keep"}, {"uid", "k1"}}})}}}};
  json patch = migrate::reown_strategic_patch(pod, "c", "c-0", "m-uid", true);
  REQUIRE(patch.is_object());
  CHECK(patch["metadata"]["uid"] == "p1");
  CHECK_FALSE(patch["metadata"].contains("resourceVersion"));  // commutes with the collector's own patch
  CHECK(patch["metadata"]["labels"]["etcd-operator.cozystack.io/role"] == "voter");
  const json& refs = patch["metadata"]["ownerReferences"];
  REQUIRE(refs.size() == 2);
  CHECK(refs[0] == json{{"$patch", "delete"}, {"uid", "s1"}});  // the ConfigMap is not named: it stays
  CHECK(refs[1]["kind"] == "EtcdMember");
  CHECK(refs[1]["uid"] == "m-uid");
  CHECK(refs[1]["controller"] == true);

  // Already ours with every label: nothing to send.
  json adopted = pod;
  adopted["metadata"]["ownerReferences"] = json::array({pod["metadata"]["ownerReferences"][1], refs[1]});
  adopted["metadata"]["labels"].update(patch["metadata"]["labels"]);
  CHECK(migrate::reown_strategic_patch(adopted, "c", "c-0", "m-uid", true).is_null());

  // The collector orphaned it first (no controller left): only ours is merged.
  json orphaned = pod;
  orphaned["metadata"]["ownerReferences"] = json::array({pod["metadata"]["ownerReferences"][1]});
  json p2 = migrate::reown_strategic_patch(orphaned, "c", "c-0", "m-uid", true);
  REQUIRE(p2["metadata"]["ownerReferences"].size() == 1);
  CHECK(p2["metadata"]["ownerReferences"][0]["uid"] == "m-uid");
}
