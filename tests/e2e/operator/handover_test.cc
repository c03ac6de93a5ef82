// After `etcd-migrate adopt --apply`, the real operator takes the cluster
// over and changes nothing that matters: no Pod deleted or recreated, no PVC
// changed, the same etcd cluster and member IDs, every key kept, a writer
// running throughout never fails; the operator reports the cluster healthy,
// and then leaves it alone (docs/operator-contract.md).
#include <doctest/doctest.h>

#include <thread>

#include "../migrate/adopt_checks.h"
#include "etcd/member_id.h"
#include "operator_e2e.h"

using json = nlohmann::json;

namespace {

const std::vector<std::string> kWatched = {"pods", "persistentvolumeclaims", "services", "poddisruptionbudgets",
                                           "etcdclusters.etcd-operator.cozystack.io",
                                           "etcdmembers.etcd-operator.cozystack.io"};

std::string secret_password(const std::string& ns, const std::string& secret) {
  std::string b64 = e2e::kubectl({"-n", ns, "get", "secret", secret, "-o", "jsonpath={.data.password}"});
  auto decoded = e2e::run({"base64", "-d"}, {}, b64);
  REQUIRE(decoded.rc == 0);
  return decoded.out;
}

void hand_over(const std::string& version, bool tls_auth) {
  e2e::Namespace ns("e2e-handover-" + version.substr(0, 1) + version.substr(2));
  std::vector<std::string> args = {"--version", version, "--pdb"};
  if (tls_auth) args.insert(args.end(), {"--tls", "--auth"});
  e2e::LegacyFixture f(ns.name(), "etcd", args);
  // The chart's operator Deployment at 0 replicas, as a user leaves it for the adoption.
  e2e::Operator op(f.new_controller(), ns.name(), 0);

  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);
  auto r = e2e::apply(f, {"--skip-backup"});
  INFO("adopt stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.rc == 0);
  const auto pvcs_before = e2e::uids(ns.name(), {"persistentvolumeclaims"});
  json pvc_specs_before = e2e::get_json({"-n", ns.name(), "persistentvolumeclaims"});

  op.scale(1);
  op.wait_leading();
  e2e::wait_until([&] { return e2e::converged(ns.name(), "etcd"); }, std::chrono::seconds(120),
                  "the operator to report " + ns.name() + "/etcd converged");
  INFO("operator log errors: " << json(e2e::operator_errors(op, ns.name())).dump(2));

  // The conditions the operator sets for a healthy cluster.
  json cluster = e2e::get_json({"-n", ns.name(), "etcdclusters.etcd-operator.cozystack.io", "etcd"});
  CHECK(e2e::condition(cluster, "Available")["reason"] == "QuorumHealthy");
  CHECK(e2e::condition(cluster, "Degraded")["reason"] == "QuorumHealthy");
  CHECK(e2e::condition(cluster, "Progressing")["reason"] == "Reconciled");
  CHECK(cluster["status"]["clusterID"] == before.cluster_id);
  CHECK(cluster["status"]["clusterToken"] == "etcd-" + ns.name());
  CHECK(cluster["status"].value("authEnabled", false) == tls_auth);
  for (const auto& [name, id] : before.member_ids) {
    json m = e2e::get_json({"-n", ns.name(), "etcdmembers", name});
    CHECK(e2e::condition(m, "Ready")["status"] == "True");
    CHECK(m["status"]["isVoter"] == true);
    CHECK(m["status"]["memberID"] == id);
    CHECK(m["status"]["podUID"] == before.pod_uids.at(name));
  }
  json pdb = e2e::get_json({"-n", ns.name(), "poddisruptionbudgets", "etcd"});
  CHECK(pdb["spec"]["minAvailable"] == 2);
  CHECK(pdb["metadata"]["ownerReferences"][0]["kind"] == "EtcdCluster");

  // Nothing restarted, nothing moved.
  for (const auto& [name, uid] : before.pod_uids) {
    json pod = e2e::get_json({"-n", ns.name(), "pod", name});
    CHECK(pod["metadata"]["uid"] == uid);
    CHECK_FALSE(pod["metadata"].contains("deletionTimestamp"));
    for (const auto& cs : pod["status"]["containerStatuses"]) CHECK(cs.value("restartCount", 0) == 0);
  }
  CHECK(e2e::uids(ns.name(), {"persistentvolumeclaims"}) == pvcs_before);
  json pvc_specs_after = e2e::get_json({"-n", ns.name(), "persistentvolumeclaims"});
  for (std::size_t i = 0; i < pvc_specs_before["items"].size(); ++i) {
    CHECK(pvc_specs_after["items"][i]["spec"] == pvc_specs_before["items"][i]["spec"]);
  }
  auto live = f.etcdctl({"member", "list", "--write-out=json"});
  REQUIRE(live.rc == 0);
  json members = json::parse(live.out);
  CHECK(etcd::format_member_id(members["header"]["cluster_id"].get<unsigned long long>()) == before.cluster_id);
  std::map<std::string, std::string> ids;
  for (const auto& m : members["members"]) {
    ids[m["name"]] = etcd::format_member_id(m["ID"].get<unsigned long long>());
    CHECK(m.value("isLearner", false) == false);
  }
  CHECK(ids == before.member_ids);

  if (tls_auth) {
    // The operator turned auth back on; root logs in with the Secret's password.
    const std::string password = secret_password(ns.name(), "etcd-root-credentials");
    auto login = f.etcdctl({"--user", "root:" + password, "get", "/e2e-writer/0"});
    CHECK_MESSAGE(login.rc == 0, "root cannot log in with the Secret's password: " << login.err);
    CHECK(f.etcdctl({"--user", "root:wrong", "get", "/e2e-writer/0"}).rc != 0);
    CHECK(f.etcdctl({"auth", "status"}).out.find("true") != std::string::npos);
  }

  // Our own checks agree with the operator's view.
  auto check = e2e::run({e2e::kubectl_etcd_path(), "check", "-n", ns.name(), "-c", "etcd", "--connect", "direct",
                         "--operator", f.new_controller(), "-o", "json"},
                        {{"KUBECONFIG", e2e::var("KUBECONFIG")}, {"NO_COLOR", "1"}});
  INFO("check: " << check.out << check.err);
  CHECK(check.rc == 0);
  CHECK(json::parse(check.out)["findings"].empty());
  auto verified = e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd"});
  CHECK_MESSAGE(verified.rc == 0, "verify: " << verified.out << verified.err);

  // Then the operator runs on and writes nothing more to what it took over.
  const auto versions = e2e::versions(ns.name(), kWatched);
  std::this_thread::sleep_for(std::chrono::seconds(60));
  CHECK(e2e::versions(ns.name(), kWatched) == versions);
  CHECK(e2e::operator_errors(op, ns.name()).empty());

  auto written = writer.stop();
  CHECK(written > 0);
  CHECK(writer.errors() == 0);
  e2e::check_keys(f, written);
}

}  // namespace

TEST_CASE("etcd 3.5 plain: the real operator takes an adopted cluster over and restarts nothing") {
  hand_over("3.5", false);
}

TEST_CASE("etcd 3.6 with TLS and auth: the real operator takes it over, turns auth on, root logs in with the Secret's password") {
  hand_over("3.6", true);
}
