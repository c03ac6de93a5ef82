#include "admin/cert_check.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "kube/base64.h"

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
