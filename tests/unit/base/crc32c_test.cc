#include "base/crc32c.h"

#include <doctest/doctest.h>

#include <random>
#include <string>

TEST_CASE("crc32c of the check string and of the empty string are the known values") {
  CHECK(base::crc32c("123456789") == 0xE3069283u);
  CHECK(base::crc32c_table("123456789") == 0xE3069283u);
  CHECK(base::crc32c_hardware("123456789") == 0xE3069283u);
  CHECK(base::crc32c("") == 0u);
  // 32 zero bytes and 32 0xff bytes (the iSCSI specification's examples).
  CHECK(base::crc32c(std::string(32, '\0')) == 0x8A9136AAu);
  CHECK(base::crc32c(std::string(32, '\xff')) == 0x62A8AB43u);
}

TEST_CASE("the hardware and the table implementations agree on random data of odd lengths and offsets") {
  INFO("hardware available: " << base::crc32c_hardware_available());
  std::mt19937_64 rng(40);
  std::string data(70000, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  for (std::size_t len : {1u, 3u, 7u, 8u, 9u, 15u, 63u, 1001u, 4097u, 65537u}) {
    for (std::size_t off : {0u, 1u, 5u}) {
      std::string_view piece = std::string_view(data).substr(off, len);
      CHECK(base::crc32c_hardware(piece) == base::crc32c_table(piece));
      CHECK(base::crc32c_hardware(piece, 0x12345678u) == base::crc32c_table(piece, 0x12345678u));
    }
  }
}

TEST_CASE("a stream checked in pieces has the CRC of the whole") {
  std::string whole = "the quick brown fox jumps over the lazy dog, and again, and again";
  base::Crc32c c;
  c.update(whole.substr(0, 5));
  c.update("");
  c.update(whole.substr(5, 30));
  c.update(whole.substr(35));
  CHECK(c.finish() == base::crc32c(whole));
  // finish() starts over empty.
  CHECK(c.finish() == 0u);
  CHECK(base::crc32c(whole.substr(9), base::crc32c(whole.substr(0, 9))) == base::crc32c(whole));
}
