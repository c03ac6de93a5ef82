#include "etcd/endpoint.h"

#include <doctest/doctest.h>

using etcd::parse_endpoint;

TEST_CASE("client URLs become gRPC targets; the scheme decides TLS") {
  auto a = parse_endpoint("https://etcd-0.etcd.ns.svc:2379", false).value();
  CHECK(a.target == "etcd-0.etcd.ns.svc:2379");
  CHECK(a.secure);
  auto b = parse_endpoint("http://127.1.0.2:2379/", true).value();
  CHECK(b.target == "127.1.0.2:2379");
  CHECK_FALSE(b.secure);
  auto c = parse_endpoint("[::1]:2379", true).value();
  CHECK(c.target == "[::1]:2379");
  CHECK(c.secure);
}

TEST_CASE("an endpoint without port gets 2379") {
  CHECK(parse_endpoint("https://etcd-0", false).value().target == "etcd-0:2379");
  CHECK(parse_endpoint("[::1]", false).value().target == "[::1]:2379");
}

TEST_CASE("bad endpoints are usage errors") {
  for (const char* s : {"", "ftp://x:1", "https://", "https://h:2379/v3", "h:port", "https://[::1:2379"}) {
    CAPTURE(s);
    auto r = parse_endpoint(s, false);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == cli::ErrorKind::Usage);
  }
}
