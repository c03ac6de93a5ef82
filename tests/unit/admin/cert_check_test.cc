#include "admin/cert_check.h"

#include <doctest/doctest.h>

#include "kube/base64.h"
#include "support.h"

using nlohmann::json;

namespace {

json secret_with(const std::string& testdata) {
  std::ifstream f(std::string(SOURCE_ROOT) + "/tests/unit/etcd/testdata/" + testdata);
  REQUIRE(f.good());
  std::stringstream s;
  s << f.rdbuf();
  return {{"metadata", {{"name", "etcd-server-tls"}}}, {"data", {{"tls.crt", kube::base64_encode(s.str())}}}};
}

}  // namespace

TEST_CASE("a wildcard for the cluster's headless Service covers the members the operator creates later") {
  CHECK(admin::uncovered_certificate(secret_with("sans.pem"), "etcd", "ns").empty());
}

TEST_CASE("a certificate listing other names is reported with the names it has") {
  CHECK(admin::uncovered_certificate(secret_with("sans.pem"), "etcd", "other") ==
        "Secret etcd-server-tls (tls.crt names: *.etcd.ns.svc, etcd-0.etcd-headless.ns.svc, Etcd-Client.NS.svc)");
  CHECK(admin::uncovered_certificate(secret_with("no-sans.pem"), "etcd", "ns") ==
        "Secret etcd-server-tls (tls.crt names: none)");
}

TEST_CASE("a Secret without a certificate is not judged; a broken one is reported without its bytes") {
  CHECK(admin::uncovered_certificate(json{{"metadata", {{"name", "s"}}}}, "etcd", "ns").empty());
  json broken = {{"metadata", {{"name", "s"}}}, {"data", {{"tls.crt", kube::base64_encode("not a certificate")}}}};
  CHECK(admin::uncovered_certificate(broken, "etcd", "ns") == "Secret s (tls.crt is not a PEM certificate)");
}

namespace {

std::string pem(const std::string& name) { return unit_test::source_file("tests/unit/etcd/testdata/" + name); }

// leaf.pem: CN=etcd-0 by CN=test-ca, names *.etcd.ns.svc and etcd-0.etcd.ns.svc, ends 2099-12-31T23:59:59Z.
json tls_secret(const std::string& name, const std::string& ca_file) {
  return {{"metadata", {{"name", name}}},
          {"data",
           {{"tls.crt", kube::base64_encode(pem("leaf.pem"))},
            {"ca.crt", kube::base64_encode(pem(ca_file))},
            {"tls.key", kube::base64_encode("-----BEGIN PRIVATE KEY-----\nS2VlcE91dA==\n-----END PRIVATE KEY-----\n")}}}};
}

const std::time_t kNow = 1893456000;  // 2030-01-01T00:00:00Z
const std::time_t kEnd = 4102444799;  // 2099-12-31T23:59:59Z

bool has(const admin::CertFinding& f, const std::string& code) {
  for (const auto& p : f.problems) {
    if (p.code == code) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("a wildcard certificate verified by its CA, covering today's and future members, has no problem") {
  auto s = tls_secret("etcd-server-tls", "ca.pem");
  admin::HostNames hosts{{"etcd-0.etcd.ns.svc", "etcd-1.etcd.ns.svc"}, "etcd-00000.etcd.ns.svc"};
  auto f = admin::judge_certificate({"server", "etcd-server-tls", "etcd-server-tls"}, &s, &s, hosts, "etcd", "ns", kNow);
  CHECK(f.read);
  CHECK(f.problems.empty());
  CHECK(f.chain_error.empty());
  CHECK(f.covers_future);
  CHECK(f.days_left == (kEnd - kNow) / 86400);
  auto j = admin::cert_finding_json(f);
  CHECK(j["notAfter"] == "2099-12-31T23:59:59Z");
  CHECK(j["chain"]["verified"] == true);
  CHECK(j["coverage"]["future"] == true);
  CHECK(j.dump().find("S2VlcE91dA") == std::string::npos);
  CHECK(j.dump().find("PRIVATE") == std::string::npos);
}

TEST_CASE("names of another namespace: today's members and future ones are both reported, with the fix") {
  auto s = tls_secret("s", "ca.pem");
  admin::HostNames hosts{{"etcd-0.etcd.other.svc"}, "etcd-00000.etcd.other.svc"};
  auto f = admin::judge_certificate({"peer", "s", "s"}, &s, &s, hosts, "etcd", "other", kNow);
  CHECK(has(f, "san-today"));
  CHECK(has(f, "san-future"));
  CHECK(f.uncovered_today == std::vector<std::string>{"etcd-0.etcd.other.svc"});
  for (const auto& p : f.problems) {
    CHECK(p.severity == "warning");
    CHECK(p.message.find("*.etcd.other.svc") != std::string::npos);
  }
}

TEST_CASE("a certificate of another CA fails the chain; the client certificate is not judged by names") {
  auto s = tls_secret("c", "other-ca.pem");
  admin::HostNames hosts{{"x.y.ns.svc"}, "etcd-00000.etcd.other.svc"};
  auto f = admin::judge_certificate({"client", "c", "c"}, &s, &s, hosts, "etcd", "ns", kNow);
  CHECK(has(f, "chain"));
  CHECK_FALSE(f.coverage_checked);
  CHECK_FALSE(has(f, "san-today"));
  CHECK_FALSE(admin::cert_finding_json(f).contains("coverage"));
}

TEST_CASE("expiry: a warning within 30 days, a blocker once past") {
  auto s = tls_secret("s", "ca.pem");
  admin::HostNames hosts{{}, ""};
  auto soon = admin::judge_certificate({"server", "s", "s"}, &s, &s, hosts, "etcd", "ns", kEnd - 29 * 86400);
  CHECK(has(soon, "expiring"));
  CHECK_FALSE(has(soon, "expired"));
  auto later = admin::judge_certificate({"server", "s", "s"}, &s, &s, hosts, "etcd", "ns", kEnd - 31 * 86400);
  CHECK(later.problems.empty());
  auto past = admin::judge_certificate({"server", "s", "s"}, &s, &s, hosts, "etcd", "ns", kEnd + 86400);
  REQUIRE(has(past, "expired"));
  CHECK(past.problems.front().severity == "blocker");
  CHECK(past.days_left == -1);
  CHECK(past.chain_error.empty());  // the signature still chains; expiry is reported on its own
}

TEST_CASE("a missing Secret, a missing CA and a CA-only Secret") {
  admin::HostNames hosts{{}, ""};
  auto none = admin::judge_certificate({"server", "gone", "gone"}, nullptr, nullptr, hosts, "etcd", "ns", kNow);
  CHECK(has(none, "missing"));
  auto s = tls_secret("s", "ca.pem");
  auto no_ca = admin::judge_certificate({"server", "s", "ca"}, &s, nullptr, hosts, "etcd", "ns", kNow);
  CHECK(no_ca.chain_error == "CA Secret ca does not exist");
  json ca_only = {{"metadata", {{"name", "ca"}}}, {"data", {{"tls.crt", kube::base64_encode(pem("ca.pem"))}}}};
  CHECK(admin::ca_pem_of(ca_only) == pem("ca.pem"));
  auto via = admin::judge_certificate({"server", "s", "ca"}, &s, &ca_only, hosts, "etcd", "ns", kNow);
  CHECK(via.chain_error.empty());
  // A Secret with a key is a leaf's, not a CA's: its tls.crt is not taken as the CA.
  json leaf_only = {{"metadata", {{"name", "l"}}}, {"data", {{"tls.crt", "eA=="}, {"tls.key", "eA=="}}}};
  CHECK(admin::ca_pem_of(leaf_only).empty());
}

TEST_CASE("which Secrets hold a cluster's certificates") {
  json native = {{"metadata", {{"name", "etcd"}}},
                 {"spec", {{"tls", {{"client", {{"serverSecretRef", {{"name", "srv"}}}, {"operatorClientSecretRef", {{"name", "op"}}}}},
                                    {"peer", {{"certManager", json::object()}}}}}}}};
  auto s = admin::cluster_cert_sources(native);
  REQUIRE(s.size() == 3);
  CHECK((s[0].role == "server" && s[0].secret == "srv" && s[0].ca_secret == "srv"));
  CHECK((s[1].role == "client" && s[1].secret == "op" && s[1].ca_secret == "srv"));
  CHECK((s[2].role == "peer" && s[2].secret == "etcd-peer-tls" && s[2].ca_secret == "etcd-peer-tls"));
  CHECK(admin::cluster_cert_sources(json{{"metadata", {{"name", "etcd"}}}, {"spec", json::object()}}).empty());

  auto legacy = op::LegacyCluster::from(
      {{"metadata", {{"name", "etcd"}, {"namespace", "ns"}}},
       {"spec", {{"security", {{"tls", {{"serverSecret", "srv"}, {"serverTrustedCASecret", "ca"}, {"peerSecret", "peer"},
                                        {"clientSecret", "cli"}, {"clientTrustedCASecret", "ca"}}}}}}}});
  auto l = admin::legacy_cert_sources(legacy);
  REQUIRE(l.size() == 3);
  CHECK((l[0].role == "server" && l[0].secret == "srv" && l[0].ca_secret == "ca"));
  CHECK((l[1].role == "peer" && l[1].secret == "peer" && l[1].ca_secret == "peer"));
  CHECK((l[2].role == "client" && l[2].secret == "cli" && l[2].ca_secret == "ca"));
}
