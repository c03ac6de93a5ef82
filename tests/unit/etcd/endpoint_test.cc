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
    CHECK(r.error().kind == base::ErrorKind::Usage);
  }
}

TEST_CASE("the error names what is wrong with the endpoint") {
  auto why = [](const char* s) { return parse_endpoint(s, false).error().message; };
  CHECK(why("http://127.0.0.1:99999") == "invalid etcd endpoint: port 99999 is out of range 1-65535");
  CHECK(why("http://127.0.0.1:0") == "invalid etcd endpoint: port 0 is out of range 1-65535");
  CHECK(why("http//bad::::") == "invalid etcd endpoint: no \"://\" after the scheme");
  CHECK(why("https://fe80::1:2379").find("in brackets") != std::string::npos);
  CHECK(why("https://h:2379/v3") == "invalid etcd endpoint: a path is not allowed");
  CHECK(parse_endpoint("http://127.0.0.1:65535", false).ok());
}

TEST_CASE("address literals skip gRPC's DNS resolver; names go through it") {
  CHECK(etcd::grpc_target("127.1.0.2:2379") == "ipv4:127.1.0.2:2379");
  CHECK(etcd::grpc_target("[::1]:2379") == "ipv6:[::1]:2379");
  CHECK(etcd::grpc_target("[fd00::10]:32379") == "ipv6:[fd00::10]:32379");
  CHECK(etcd::grpc_target("etcd-0.etcd.ns.svc:2379") == "dns:///etcd-0.etcd.ns.svc:2379");
  CHECK(etcd::grpc_target("localhost:2379") == "dns:///localhost:2379");
  // Not quite literals: left to the resolver, which explains its failures.
  CHECK(etcd::grpc_target("127.1.2:2379") == "dns:///127.1.2:2379");
  CHECK(etcd::grpc_target("[etcd-0]:2379") == "dns:///[etcd-0]:2379");
  CHECK(etcd::grpc_target("10.0.0.300:2379") == "dns:///10.0.0.300:2379");
}
