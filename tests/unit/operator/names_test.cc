#include "operator/names.h"

#include <doctest/doctest.h>

TEST_CASE("object names of the operator contract") {
  CHECK(op::member_pvc("etcd-0") == "data-etcd-0");
  CHECK(op::cluster_token("etcd", "tenant-a") == "etcd-tenant-a");
  CHECK(op::root_credentials_secret("etcd") == "etcd-root-credentials");
  CHECK(op::native_client_service("etcd") == "etcd-client");
  CHECK(op::legacy_cluster_state_configmap("etcd") == "etcd-cluster-state");
  CHECK(op::member_dns("etcd-0", "etcd-headless", "ns") == "etcd-0.etcd-headless.ns.svc");
  CHECK(op::service_dns("etcd", "ns") == "etcd.ns.svc");
}

TEST_CASE("label sets nest: legacy < cluster < member") {
  auto m = op::member_labels("etcd", "etcd-1");
  CHECK(m.size() == 5);
  CHECK(m["app.kubernetes.io/name"] == "etcd");
  CHECK(m["app.kubernetes.io/instance"] == "etcd");
  CHECK(m["app.kubernetes.io/managed-by"] == "etcd-operator");
  CHECK(m["etcd-operator.cozystack.io/cluster"] == "etcd");
  CHECK(m["app.kubernetes.io/component"] == "etcd-1");
  CHECK(op::cluster_labels("x").size() == 4);
  CHECK(op::legacy_labels("x").size() == 3);
  CHECK(op::legacy_selector("x") == "app.kubernetes.io/name=etcd,app.kubernetes.io/instance=x");
}

TEST_CASE("owner references to new-API objects") {
  auto r = op::owner_reference("EtcdMember", "etcd-0", "uid-1", true);
  CHECK(r.dump() ==
        R"({"apiVersion":"etcd-operator.cozystack.io/v1alpha2","kind":"EtcdMember","name":"etcd-0","uid":"uid-1","controller":true,"blockOwnerDeletion":true})");
  auto n = op::owner_reference("EtcdMember", "etcd-0", "uid-1", false);
  CHECK(n["controller"] == false);
  CHECK(n["blockOwnerDeletion"] == false);
}
