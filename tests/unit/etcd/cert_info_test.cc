#include "etcd/cert_info.h"

#include <doctest/doctest.h>

#include "base/rfc3339.h"
#include "support.h"

namespace {

std::string pem_file(const std::string& name) { return unit_test::source_file("tests/unit/etcd/testdata/" + name); }

}  // namespace

TEST_CASE("subject, issuer, names and end of a CA-signed certificate") {
  auto info = etcd::certificate_info(pem_file("leaf.pem"), "x");
  REQUIRE(info.ok());
  CHECK(info->subject.find("CN=etcd-0") != std::string::npos);
  CHECK(info->issuer == "CN=test-ca");
  CHECK(info->dns_names == std::vector<std::string>{"*.etcd.ns.svc", "etcd-0.etcd.ns.svc"});
  CHECK(info->ip_addresses == std::vector<std::string>{"127.0.0.1"});
  CHECK(base::format_rfc3339(info->not_after) == "2099-12-31T23:59:59Z");
  CHECK(base::format_rfc3339(info->not_before) == "2026-01-01T00:00:00Z");
  CHECK_FALSE(info->is_ca);
  auto ca = etcd::certificate_info(pem_file("ca.pem"), "x");
  REQUIRE(ca.ok());
  CHECK(ca->is_ca);
}

TEST_CASE("a key is not a certificate, and the error names the origin without the PEM") {
  auto info = etcd::certificate_info("-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n", "Secret s key tls.crt");
  REQUIRE_FALSE(info.ok());
  CHECK(info.error().one_line().find("Secret s key tls.crt") != std::string::npos);
  CHECK(info.error().one_line().find("c2VjcmV0") == std::string::npos);
}

TEST_CASE("the chain verifies against its own CA only") {
  CHECK(etcd::verify_chain(pem_file("leaf.pem"), pem_file("ca.pem")).empty());
  CHECK(etcd::verify_chain(pem_file("leaf.pem"), pem_file("other-ca.pem") + pem_file("ca.pem")).empty());
  CHECK_FALSE(etcd::verify_chain(pem_file("leaf.pem"), pem_file("other-ca.pem")).empty());
  CHECK(etcd::verify_chain(pem_file("leaf.pem"), "") == "the CA is not a PEM certificate");
  CHECK(etcd::verify_chain("", pem_file("ca.pem")) == "not a PEM certificate");
}
