#include "etcd/cert_names.h"

#include <doctest/doctest.h>

#include "support.h"

namespace {

std::string cert_file(const std::string& name) { return unit_test::source_file("tests/unit/etcd/testdata/" + name); }

}  // namespace

TEST_CASE("the DNS subjectAltNames of a certificate, IP addresses left out") {
  auto names = etcd::certificate_dns_names(cert_file("sans.pem"), "Secret s key tls.crt");
  REQUIRE(names.ok());
  CHECK(*names == std::vector<std::string>{"*.etcd.ns.svc", "etcd-0.etcd-headless.ns.svc", "Etcd-Client.NS.svc"});
}

TEST_CASE("a certificate without subjectAltNames has no DNS names") {
  auto names = etcd::certificate_dns_names(cert_file("no-sans.pem"), "x");
  REQUIRE(names.ok());
  CHECK(names->empty());
}

TEST_CASE("what is not a PEM certificate is an error naming where it came from, not its bytes") {
  auto names = etcd::certificate_dns_names("-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----\n",
                                           "Secret ns/s key tls.crt");
  REQUIRE_FALSE(names.ok());
  CHECK(names.error().one_line().find("Secret ns/s key tls.crt") != std::string::npos);
  CHECK(names.error().one_line().find("c2VjcmV0") == std::string::npos);
}

TEST_CASE("a wildcard covers exactly one leftmost label; other names match whole, ignoring case") {
  const std::vector<std::string> names = {"*.etcd.ns.svc", "etcd-0.etcd-headless.ns.svc", "Etcd-Client.NS.svc"};
  CHECK(etcd::names_cover(names, "etcd-00000.etcd.ns.svc"));
  CHECK(etcd::names_cover(names, "ETCD-1.etcd.ns.svc"));
  CHECK_FALSE(etcd::names_cover(names, "etcd.ns.svc"));
  CHECK_FALSE(etcd::names_cover(names, "a.b.etcd.ns.svc"));
  CHECK_FALSE(etcd::names_cover(names, ".etcd.ns.svc"));
  CHECK(etcd::names_cover(names, "etcd-0.etcd-headless.ns.svc"));
  CHECK_FALSE(etcd::names_cover(names, "etcd-1.etcd-headless.ns.svc"));
  CHECK(etcd::names_cover(names, "etcd-client.ns.svc"));
  CHECK_FALSE(etcd::names_cover({}, "etcd-0.etcd.ns.svc"));
}
