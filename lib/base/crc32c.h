// CRC-32C (Castagnoli, the iSCSI polynomial) over a stream of bytes. S3
// checks an upload part by it (x-amz-checksum-crc32c) at a fraction of the
// cost of MD5: x86-64 processors with SSE4.2 compute it in hardware, picked
// at run time; other processors use a table. Not for security: it catches
// corruption, not tampering, so it stands in for Content-MD5 only where TLS
// protects the bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace base {

// The CRC-32C of `data` appended to bytes whose CRC-32C is `crc` (0 for
// none): crc32c(a + b) == crc32c(b, crc32c(a)).
std::uint32_t crc32c(std::string_view data, std::uint32_t crc = 0);

// The two implementations crc32c() picks from, for the test that they agree.
std::uint32_t crc32c_table(std::string_view data, std::uint32_t crc = 0);
// Whether this processor has the CRC32 instruction (SSE4.2); when not,
// crc32c_hardware() is crc32c_table().
bool crc32c_hardware_available();
std::uint32_t crc32c_hardware(std::string_view data, std::uint32_t crc = 0);

// Running form of crc32c().
class Crc32c {
 public:
  void update(std::string_view data) { crc_ = crc32c(data, crc_); }
  // Ends the stream; the object then starts over empty.
  std::uint32_t finish() {
    std::uint32_t c = crc_;
    crc_ = 0;
    return c;
  }

 private:
  std::uint32_t crc_ = 0;
};

}  // namespace base
