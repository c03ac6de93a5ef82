#include "etcd/member_id.h"

#include <doctest/doctest.h>

using etcd::format_member_id;
using etcd::parse_member_id;
using etcd::parse_hex_member_id;

TEST_CASE("member IDs print as 16 lowercase hex digits, zero-padded") {
  CHECK(format_member_id(0x8e9e05c52164694dULL) == "8e9e05c52164694d");
  CHECK(format_member_id(0x1ULL) == "0000000000000001");
  CHECK(format_member_id(0) == "0000000000000000");
  CHECK(format_member_id(~0ULL) == "ffffffffffffffff");
}

TEST_CASE("up to 16 characters are read as hex, as etcdctl does") {
  CHECK(parse_member_id("8e9e05c52164694d").value() == 0x8e9e05c52164694dULL);
  CHECK(parse_member_id("8E9E05C52164694D").value() == 0x8e9e05c52164694dULL);
  CHECK(parse_member_id("1").value() == 1);
  CHECK(parse_member_id("10").value() == 16);  // hex, not decimal
  CHECK(parse_member_id("0000000000000001").value() == 1);
}

TEST_CASE("0x is accepted") {
  CHECK(parse_member_id("0x8e9e05c52164694d").value() == 0x8e9e05c52164694dULL);
  CHECK(parse_member_id("0X10").value() == 16);
}

TEST_CASE("17 to 20 digits are decimal") {
  CHECK(parse_member_id("10276657743932975437").value() == 10276657743932975437ULL);
  CHECK(parse_member_id("18446744073709551615").value() == ~0ULL);
  CHECK(parse_member_id("00000000000000000016").value() == 16);
}

TEST_CASE("round trip through the printed form") {
  for (std::uint64_t id : {0ULL, 1ULL, 0xdeadbeefULL, 0x8e9e05c52164694dULL, ~0ULL}) {
    CHECK(parse_member_id(format_member_id(id)).value() == id);
  }
}

TEST_CASE("bad member IDs are usage errors that quote the input") {
  for (const char* s : {"", "xyz", "8e9e05c52164694g", "18446744073709551616", "123456789012345678901",
                        "12345678901234567a", "0x", "0x11112222333344445", "-1", " 1", "+1"}) {
    CAPTURE(s);
    auto r = parse_member_id(s);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == base::ErrorKind::Usage);
    CHECK(r.error().message.find(std::string("\"") + s + "\"") != std::string::npos);
  }
}

TEST_CASE("the hex-only form reads what the Go plugin read, never decimal") {
  CHECK(parse_hex_member_id("8e9e05c52164694d").value() == 0x8e9e05c52164694dULL);
  CHECK(parse_hex_member_id("10").value() == 16);
  CHECK(parse_hex_member_id("0xA").value() == 10);
  for (const char* s : {"12345678901234567890", "0x11112222333344445", "xyz", ""}) {
    CAPTURE(s);
    auto r = parse_hex_member_id(s);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == base::ErrorKind::Usage);
    CHECK(r.error().message.find(std::string("\"") + s + "\"") != std::string::npos);
  }
}
