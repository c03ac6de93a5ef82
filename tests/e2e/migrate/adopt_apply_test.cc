// etcd-migrate adopt --apply against real legacy fixtures (legacy webhooks
// failing closed, the real garbage collector): the object graph the
// operator expects, pods never recreated (same UIDs), etcd's identity and
// data unchanged, auth usable afterwards (docs/rules.md#root-user-replaced), and a re-run that changes
// nothing.
#include <doctest/doctest.h>

#include "adopt_checks.h"

using json = nlohmann::json;

namespace {

void adopt_and_check(const std::string& version, const std::vector<std::string>& variant, bool auth) {
  e2e::Namespace ns("e2e-apply-" + version.substr(0, 1) + version.substr(2));
  std::vector<std::string> args = {"--version", version, "--pdb"};
  args.insert(args.end(), variant.begin(), variant.end());
  e2e::LegacyFixture f(ns.name(), "etcd", args);
  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);  // puts keys throughout: quorum is never touched

  std::string dir = e2e::backup_dir(f);
  auto r = e2e::apply(f, {"--backup-dir", dir});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.rc == 0);
  auto written = writer.stop();
  CHECK(writer.errors() == 0);
  e2e::check_adopted(f, before, auth);
  e2e::check_keys(f, written);
  CHECK(r.out.find("1 adopted") != std::string::npos);
  // The safety snapshot is a real, complete etcd snapshot.
  e2e::check_snapshot_file(f, dir + "/" + ns.name() + "-etcd-migration.db");

  auto verified = e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd", "-o", "json"});
  INFO("verify: " << verified.out << verified.err);
  CHECK(verified.rc == 0);
  CHECK(json::parse(verified.out)["ok"] == true);

  if (auth) {
    e2e::check_operator_auth_enable(f);
    // With auth on, verify logs in as root with the Secret's password.
    auto again = e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd"});
    CHECK(again.rc == 0);
    CHECK(again.out.find("root logs in with the password of Secret etcd-root-credentials") != std::string::npos);
  }

  // A re-run finds the cluster adopted and writes nothing.
  auto graph = e2e::graph(f);
  auto again = e2e::apply(f, {"--skip-backup"});
  CHECK(again.rc == 0);
  CHECK(e2e::graph(f) == graph);

  // A pod that lost its role label is found (the consistency rules), exit 1.
  e2e::kubectl({"-n", ns.name(), "label", "pod", "etcd-1", "etcd-operator.cozystack.io/role-"});
  auto tampered = e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd"});
  CHECK(tampered.rc == 1);
  CHECK(tampered.out.find("ROLE_LABEL") != std::string::npos);
}

}  // namespace

TEST_CASE("etcd 3.4 plain: adopted in place") { adopt_and_check("3.4", {}, false); }
TEST_CASE("etcd 3.5 with TLS: adopted in place") { adopt_and_check("3.5", {"--tls"}, false); }
TEST_CASE("etcd 3.6 with TLS and auth: adopted, and root logs in with the Secret's password after the operator's auth-enable") {
  adopt_and_check("3.6", {"--tls", "--auth"}, true);
}

TEST_CASE("renamed Services: <cs> keeps serving, owned by the new EtcdCluster; native headless <c> created") {
  e2e::Namespace ns("e2e-apply-svc");
  e2e::LegacyFixture f(ns.name(), "etcd",
                       {"--version", "3.6", "--tls", "--client-service", "etcd-api", "--headless-service", "etcd-peers"});
  auto r = e2e::apply(f, {"--skip-backup"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  json cs = json::parse(e2e::kubectl({"-n", ns.name(), "get", "service", "etcd-api", "-o", "json"}));
  CHECK(cs["spec"]["clusterIP"] != "None");
  CHECK(cs["metadata"]["ownerReferences"].size() == 1);
  CHECK(cs["metadata"]["ownerReferences"][0]["kind"] == "EtcdCluster");
  CHECK(cs["metadata"]["ownerReferences"][0]["apiVersion"] == "etcd-operator.cozystack.io/v1alpha2");
  CHECK(cs["metadata"]["ownerReferences"][0]["controller"] == false);
  json c = json::parse(e2e::kubectl({"-n", ns.name(), "get", "service", "etcd", "-o", "json"}));
  CHECK(c["spec"]["clusterIP"] == "None");
  CHECK(c["metadata"]["ownerReferences"][0]["controller"] == true);
  json hl = json::parse(e2e::kubectl({"-n", ns.name(), "get", "service", "etcd-peers", "-o", "json"}));
  CHECK(hl["metadata"]["ownerReferences"].size() == 3);
}

TEST_CASE("verify: nothing adopted is 6, an ambiguous name without -n is 128") {
  CHECK(e2e::etcd_migrate({"verify", "-n", "no-such-namespace-here"}).rc == 6);
  CHECK(e2e::etcd_migrate({"verify", "--connect", "tunnel"}).rc == 128);
}

TEST_CASE("--apply without a terminal and without --yes refuses (3) and changes nothing") {
  e2e::Namespace ns("e2e-apply-confirm");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  auto before = e2e::fingerprint(f);
  auto r = e2e::etcd_migrate({"adopt", "-n", ns.name(), "--connect", "direct", "--apply", "--skip-backup",
                              "--legacy-controller", f.legacy_controller(), "--new-controller", f.new_controller()});
  CHECK(r.rc == 3);
  CHECK(r.err.find("--yes") != std::string::npos);
  CHECK(e2e::fingerprint(f) == before);
}

TEST_CASE("the client Service swap orphans its EndpointSlices: the pods stay published under the name until the new Service has its own") {
  e2e::Namespace ns("e2e-apply-slices");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  json old = json::parse(e2e::kubectl({"-n", ns.name(), "get", "service", "etcd", "-o", "json"}));
  REQUIRE(old["spec"]["clusterIP"] != "None");
  // The slice the endpoint controller keeps for the ClusterIP Service (this
  // environment runs no endpoint controller; the garbage collector runs).
  json slice = {{"apiVersion", "discovery.k8s.io/v1"},
                {"kind", "EndpointSlice"},
                {"metadata",
                 {{"name", "etcd-abcde"},
                  {"namespace", ns.name()},
                  {"labels",
                   {{"kubernetes.io/service-name", "etcd"},
                    {"endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"}}},
                  {"ownerReferences",
                   {{{"apiVersion", "v1"},
                     {"kind", "Service"},
                     {"name", "etcd"},
                     {"uid", old["metadata"]["uid"]},
                     {"controller", true},
                     {"blockOwnerDeletion", true}}}}}},
                {"addressType", "IPv4"},
                {"endpoints", {{{"addresses", {"10.244.9.10"}}, {"conditions", {{"ready", true}}}}}},
                {"ports", {{{"name", "client"}, {"port", 2379}, {"protocol", "TCP"}}}}};
  e2e::kubectl({"apply", "-f", "-"}, slice.dump());

  auto r = e2e::apply(f, {"--skip-backup"});
  INFO(r.out << r.err);
  CHECK(r.rc == 0);
  json c = json::parse(e2e::kubectl({"-n", ns.name(), "get", "service", "etcd", "-o", "json"}));
  CHECK(c["spec"]["clusterIP"] == "None");
  CHECK(c["metadata"]["uid"] != old["metadata"]["uid"]);
  json kept = json::parse(e2e::kubectl({"-n", ns.name(), "get", "endpointslice", "etcd-abcde", "-o", "json"}));
  CHECK(kept["endpoints"][0]["addresses"][0] == "10.244.9.10");
  CHECK(kept["metadata"].value("ownerReferences", json::array()).empty());
}
