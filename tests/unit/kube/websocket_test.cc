#include "kube/websocket.h"

#include <doctest/doctest.h>

using namespace kube::ws;

TEST_CASE("the accept key of RFC 6455's example") {
  CHECK(accept_key("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  CHECK(new_key().size() == 24);
  CHECK(new_key() != new_key());
}

TEST_CASE("the upgrade request names the path, key, subprotocol and extra headers") {
  std::string r = upgrade_request("api.example:6443", "/prefix/api/v1/namespaces/ns/pods/p/portforward?ports=2379",
                                  "KEY==", "v4.channel.k8s.io", {"Authorization: Bearer t"});
  CHECK(r.rfind("GET /prefix/api/v1/namespaces/ns/pods/p/portforward?ports=2379 HTTP/1.1\r\n", 0) == 0);
  CHECK(r.find("\r\nHost: api.example:6443\r\n") != std::string::npos);
  CHECK(r.find("\r\nUpgrade: websocket\r\n") != std::string::npos);
  CHECK(r.find("\r\nSec-WebSocket-Key: KEY==\r\n") != std::string::npos);
  CHECK(r.find("\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n") != std::string::npos);
  CHECK(r.find("\r\nAuthorization: Bearer t\r\n") != std::string::npos);
  CHECK(r.size() >= 4);
  CHECK(r.substr(r.size() - 4) == "\r\n\r\n");
}

TEST_CASE("upgrade answers: incomplete, accepted, refused, garbage") {
  const std::string key = "dGhlIHNhbXBsZSBub25jZQ==";
  std::string ok = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\nSec-WebSocket-Protocol: v4.channel.k8s.io\r\n\r\n"
                   "\x82\x03";
  CHECK_FALSE(parse_upgrade_response(ok.substr(0, 40)).has_value());
  auto r = parse_upgrade_response(ok);
  REQUIRE(r.has_value());
  REQUIRE(r->ok());
  CHECK(r->value().status == 101);
  CHECK(r->value().header_size == ok.size() - 2);
  CHECK(check_upgrade(r->value(), key, "v4.channel.k8s.io").empty());
  CHECK_FALSE(check_upgrade(r->value(), "other", "v4.channel.k8s.io").empty());
  CHECK(check_upgrade(r->value(), key, "v5.channel.k8s.io").find("subprotocol") != std::string::npos);

  auto refused = parse_upgrade_response("HTTP/1.1 403 Forbidden\r\nContent-Length: 5\r\n\r\nhello");
  REQUIRE(refused.has_value());
  REQUIRE(refused->ok());
  CHECK(refused->value().status == 403);
  CHECK(refused->value().headers.at("content-length") == "5");
  CHECK(check_upgrade(refused->value(), key, "v4.channel.k8s.io").find("403") != std::string::npos);

  auto garbage = parse_upgrade_response("SSH-2.0-OpenSSH\r\n\r\n");
  REQUIRE(garbage.has_value());
  CHECK_FALSE(garbage->ok());
}

TEST_CASE("client frames are masked; lengths of 7, 16 and 64 bits") {
  std::array<std::uint8_t, 4> mask{1, 2, 3, 4};
  std::string f = encode_frame(Opcode::Binary, "abc", mask);
  REQUIRE(f.size() == 2 + 4 + 3);
  CHECK(static_cast<std::uint8_t>(f[0]) == 0x82);
  CHECK(static_cast<std::uint8_t>(f[1]) == (0x80 | 3));
  CHECK(f[6] == ('a' ^ 1));
  CHECK(f[7] == ('b' ^ 2));
  CHECK(f[8] == ('c' ^ 3));
  std::string mid(300, 'x');
  f = encode_frame(Opcode::Binary, mid, mask);
  CHECK(static_cast<std::uint8_t>(f[1]) == (0x80 | 126));
  CHECK(static_cast<std::uint8_t>(f[2]) == 1);
  CHECK(static_cast<std::uint8_t>(f[3]) == 44);
  CHECK(f.size() == 4 + 4 + 300);
  std::string big(70000, 'y');
  f = encode_frame(Opcode::Binary, big, mask);
  CHECK(static_cast<std::uint8_t>(f[1]) == (0x80 | 127));
  CHECK(f.size() == 10 + 4 + 70000);
}

namespace {

// A server frame (unmasked).
std::string server_frame(std::uint8_t first, std::string_view payload) {
  std::string f;
  f.push_back(static_cast<char>(first));
  if (payload.size() < 126) {
    f.push_back(static_cast<char>(payload.size()));
  } else {
    f.push_back(static_cast<char>(126));
    f.push_back(static_cast<char>(payload.size() >> 8));
    f.push_back(static_cast<char>(payload.size() & 0xFF));
  }
  f.append(payload);
  return f;
}

}  // namespace

TEST_CASE("the decoder takes frames byte by byte, joins fragments and passes control frames through") {
  std::string stream = server_frame(0x02, "hel") + server_frame(0x89, "p") + server_frame(0x80, "lo") +
                       server_frame(0x82, std::string(200, 'z')) + server_frame(0x88, "");
  Decoder d;
  std::vector<Frame> got;
  for (char c : stream) {
    d.feed(std::string_view(&c, 1));
    while (auto f = d.next()) {
      REQUIRE(f->ok());
      got.push_back(f->value());
    }
  }
  REQUIRE(got.size() == 4);
  CHECK(got[0].opcode == Opcode::Ping);
  CHECK(got[0].payload == "p");
  CHECK(got[1].opcode == Opcode::Binary);
  CHECK(got[1].payload == "hello");
  CHECK(got[2].payload == std::string(200, 'z'));
  CHECK(got[3].opcode == Opcode::Close);
}

TEST_CASE("the decoder refuses masked server frames, oversized messages and stray continuations") {
  Decoder masked;
  masked.feed(std::string("\x82\x81\x00\x00\x00\x00x", 7));
  auto f = masked.next();
  REQUIRE(f.has_value());
  CHECK_FALSE(f->ok());

  Decoder small(10);
  small.feed(server_frame(0x82, std::string(11, 'a')));
  f = small.next();
  REQUIRE(f.has_value());
  CHECK_FALSE(f->ok());

  Decoder stray;
  stray.feed(server_frame(0x80, "x"));
  f = stray.next();
  REQUIRE(f.has_value());
  CHECK_FALSE(f->ok());
}
