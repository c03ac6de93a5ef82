#include "admin/certs.h"

#include <doctest/doctest.h>

using nlohmann::json;

TEST_CASE("today's hosts: each EtcdMember under its own headless Service; the future one under <c>") {
  json members = json::array(
      {{{"metadata", {{"name", "etcd-0"}, {"annotations", {{"etcd-operator.cozystack.io/headless-service-name", "etcd-headless"}}}}}},
       {{"metadata", {{"name", "etcd-abcde"}}}}});
  auto h = admin::native_hosts("etcd", "ns", members);
  CHECK(h.today == std::vector<std::string>{"etcd-0.etcd-headless.ns.svc", "etcd-abcde.etcd.ns.svc"});
  CHECK(h.future == "etcd-00000.etcd.ns.svc");
}

TEST_CASE("a legacy cluster's hosts: its member pods under its headless Service") {
  auto legacy = op::LegacyCluster::from({{"metadata", {{"name", "etcd"}, {"namespace", "ns"}}}, {"spec", json::object()}});
  json pods = json::array({{{"metadata", {{"name", "etcd-0"}}}}, {{"metadata", {{"name", "etcd-backup-x"}}}},
                           {{"metadata", {{"name", "etcd-1"}}}}});
  auto h = admin::legacy_hosts(legacy, pods);
  REQUIRE(h.today.size() == 2);
  CHECK(h.today[0] == "etcd-0." + legacy.headless_service() + ".ns.svc");
  CHECK(h.future == "etcd-00000.etcd.ns.svc");
}

TEST_CASE("the document: certificates and their problems; exit 1 on any problem") {
  admin::CertsReport r;
  r.ns = "ns";
  r.cluster = "etcd";
  r.api = "etcd-operator.cozystack.io/v1alpha2";
  r.hosts = {{"etcd-0.etcd.ns.svc"}, "etcd-00000.etcd.ns.svc"};
  CHECK(admin::certs_exit_code(r) == 0);
  admin::CertFinding f;
  f.source = {"server", "etcd-server-tls", "etcd-server-tls"};
  f.problems.push_back({"missing", "warning", "Secret etcd-server-tls (server certificate) does not exist"});
  r.certificates.push_back(f);
  auto doc = admin::certs_document(r);
  CHECK(doc["hosts"]["future"] == "etcd-00000.etcd.ns.svc");
  CHECK(doc["certificates"][0]["secret"] == "etcd-server-tls");
  CHECK(doc["problems"][0]["code"] == "missing");
  CHECK(admin::certs_exit_code(r) == 1);
  const std::string table = admin::render_certs(doc, output::Format::Table);
  CHECK(table.find("PROBLEMS") != std::string::npos);
  CHECK(admin::render_certs(doc, output::Format::Json).find("PROBLEMS") == std::string::npos);
}
