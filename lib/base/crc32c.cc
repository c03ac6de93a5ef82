#include "base/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace base {

namespace {

constexpr std::uint32_t kPolynomial = 0x82F63B78;  // reflected Castagnoli

// Slicing by 8: tables[k][b] is the CRC of byte b followed by k zero bytes,
// so eight bytes are folded per step instead of one.
struct Tables {
  std::array<std::array<std::uint32_t, 256>, 8> t{};
  constexpr Tables() {
    for (std::uint32_t b = 0; b < 256; ++b) {
      std::uint32_t c = b;
      for (int i = 0; i < 8; ++i) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
      t[0][b] = c;
    }
    for (std::uint32_t b = 0; b < 256; ++b) {
      for (std::size_t k = 1; k < 8; ++k) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    }
  }
};
constexpr Tables kTables;

std::uint64_t load64(const unsigned char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;  // little-endian on every target this builds for, as the tables assume
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t hardware(const unsigned char* p, std::size_t n, std::uint32_t c) {
  std::uint64_t c64 = c;
  for (; n >= 8; n -= 8, p += 8) c64 = _mm_crc32_u64(c64, load64(p));
  c = static_cast<std::uint32_t>(c64);
  for (; n > 0; --n, ++p) c = _mm_crc32_u8(c, *p);
  return c;
}
#endif

bool detect_hardware() {
#if defined(__x86_64__)
  return __builtin_cpu_supports("sse4.2");
#else
  return false;
#endif
}

}  // namespace

std::uint32_t crc32c_table(std::string_view data, std::uint32_t crc) {
  const auto& t = kTables.t;
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t n = data.size();
  std::uint32_t c = ~crc;
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the slicing tables read words little-endian");
  for (; n >= 8; n -= 8, p += 8) {
    std::uint64_t v = load64(p) ^ c;
    c = t[7][v & 0xff] ^ t[6][(v >> 8) & 0xff] ^ t[5][(v >> 16) & 0xff] ^ t[4][(v >> 24) & 0xff] ^
        t[3][(v >> 32) & 0xff] ^ t[2][(v >> 40) & 0xff] ^ t[1][(v >> 48) & 0xff] ^ t[0][v >> 56];
  }
  for (; n > 0; --n, ++p) c = t[0][(c ^ *p) & 0xff] ^ (c >> 8);
  return ~c;
}

bool crc32c_hardware_available() {
  static const bool available = detect_hardware();
  return available;
}

std::uint32_t crc32c_hardware(std::string_view data, std::uint32_t crc) {
#if defined(__x86_64__)
  if (crc32c_hardware_available()) {
    return ~hardware(reinterpret_cast<const unsigned char*>(data.data()), data.size(), ~crc);
  }
#endif
  return crc32c_table(data, crc);
}

std::uint32_t crc32c(std::string_view data, std::uint32_t crc) { return crc32c_hardware(data, crc); }

}  // namespace base
