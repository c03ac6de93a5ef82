#include "admin/member_render.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "admin/member_plan.h"
#include "fixtures.h"

using namespace admin_test;

TEST_CASE("what the operator would write: initialCluster, quorum and PDB, the new EtcdMember, its Pod and PVC, the image") {
  etcd::Member unstarted;
  unstarted.id = 7;
  unstarted.peer_urls = {"https://c-zzzzz.c.ns.svc:2380"};
  unstarted.is_learner = true;
  CHECK(admin::initial_cluster({etcd_member(2, "c-bbbbb"), unstarted, etcd_member(1, "c-aaaaa")}) ==
        "c-aaaaa=https://c-aaaaa.c.ns.svc:2380,c-bbbbb=https://c-bbbbb.c.ns.svc:2380,"
        "c-zzzzz=https://c-zzzzz.c.ns.svc:2380");
  CHECK(admin::pdb_min_available(3, 4) == 3);
  CHECK(admin::pdb_min_available(2, 3) == 2);
  CHECK(admin::quorum(4) == 3);

  auto c = converged_state().cluster;
  auto m = admin::new_member(c);
  CHECK(m["metadata"]["generateName"] == "c-");
  CHECK(m["metadata"]["finalizers"][0] == "etcd-operator.cozystack.io/member-cleanup");
  CHECK(m["metadata"]["ownerReferences"][0]["uid"] == "uid-c");
  CHECK(m["spec"]["initialCluster"] == "");
  CHECK(m["spec"]["clusterToken"] == "ns-c-uid-c");
  CHECK(m["spec"]["version"] == "3.6.11");
  CHECK(m["spec"]["tls"]["clientServerSecretRef"]["name"] == "c-server-tls");
  CHECK(m["spec"]["tls"]["peerSecretRef"]["name"] == "c-peer-tls");
  CHECK_FALSE(m["spec"].contains("bootstrap"));

  m["metadata"]["name"] = "c-ddddd";
  m["metadata"]["uid"] = "uid-d";
  m["spec"]["initialCluster"] = "c-aaaaa=https://c-aaaaa.c.ns.svc:2380";
  auto pod = admin::render_pod(c, m, "quay.io/coreos/etcd", "kubectl-etcd/1");
  CHECK(pod["spec"]["containers"][0]["image"] == "quay.io/coreos/etcd:v3.6.11");
  const auto& cmd = pod["spec"]["containers"][0]["command"];
  CHECK(std::find(cmd.begin(), cmd.end(), "--initial-cluster-state=existing") != cmd.end());
  CHECK(std::find(cmd.begin(), cmd.end(), "--advertise-client-urls=https://c-ddddd.c.ns.svc:2379") != cmd.end());
  CHECK(std::find(cmd.begin(), cmd.end(), "--peer-client-cert-auth=true") != cmd.end());
  CHECK_FALSE(pod["metadata"]["labels"].contains("etcd-operator.cozystack.io/role"));
  CHECK(pod["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/rendered-by"] == "kubectl-etcd/1");
  CHECK(pod["metadata"]["ownerReferences"][0]["kind"] == "EtcdMember");
  CHECK(admin::render_pvc(m)["metadata"]["name"] == "data-c-ddddd");

  json dep = {{"spec", {{"template", {{"spec", {{"containers", json::array({{{"name", "manager"},
      {"args", json::array({"--etcd-image-repository=registry.local/etcd"})}}})}}}}}}}};
  CHECK(admin::image_repository(dep, json::array()) == "registry.local/etcd");
  json pods = json::array({{{"spec", {{"containers", json::array({{{"image", "mirror.io/etcd:v3.5.21"}}})}}}}});
  CHECK(admin::image_repository(json(), pods) == "mirror.io/etcd");
  CHECK(admin::image_repository(json(), json::array()) == "quay.io/coreos/etcd");
}
