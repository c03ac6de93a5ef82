#include "kube/channel_demux.h"

#include <doctest/doctest.h>

using namespace kube::pf;

namespace {
std::string msg(std::uint8_t channel, std::string_view body) {
  std::string m(1, static_cast<char>(channel));
  m.append(body);
  return m;
}
const std::string kPort2379("\x4b\x09", 2);  // 2379 little endian
}  // namespace

TEST_CASE("each channel's first two bytes announce the port; the rest is payload") {
  Demux d(2379);
  CHECK_FALSE(d.ready());
  auto a = d.take(msg(kDataChannel, kPort2379));
  REQUIRE(a.ok());
  CHECK(a->channel == kDataChannel);
  CHECK(a->payload.empty());
  CHECK_FALSE(d.ready());
  auto b = d.take(msg(kErrorChannel, kPort2379));
  REQUIRE(b.ok());
  CHECK(d.ready());
  std::string data = msg(kDataChannel, "etcd bytes");  // payloads point into the message
  auto c = d.take(data);
  REQUIRE(c.ok());
  CHECK(c->payload == "etcd bytes");
  std::string error = msg(kErrorChannel, "error forwarding port 2379");
  auto e = d.take(error);
  REQUIRE(e.ok());
  CHECK(e->channel == kErrorChannel);
  CHECK(e->payload == "error forwarding port 2379");
}

TEST_CASE("a prefix split over messages, and payload behind it in the same message") {
  Demux d(2379);
  auto a = d.take(msg(kDataChannel, kPort2379.substr(0, 1)));
  REQUIRE(a.ok());
  std::string rest = msg(kDataChannel, kPort2379.substr(1) + "xy");
  auto b = d.take(rest);
  REQUIRE(b.ok());
  CHECK(b->payload == "xy");
}

TEST_CASE("another port or an unknown channel is a protocol error") {
  Demux d(2380);
  CHECK_FALSE(d.take(msg(kDataChannel, kPort2379)).ok());
  Demux e(2379);
  CHECK_FALSE(e.take(msg(2, "x")).ok());
}

TEST_CASE("client data goes out on channel 0 as it is") {
  CHECK(data_message("abc") == std::string("\0abc", 4));
}
