// RFC 3339 times from objects and exec credentials.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/rfc3339.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view s(reinterpret_cast<const char*>(data), size);
  auto secs = base::parse_rfc3339_seconds(s);
  auto tp = base::parse_rfc3339(s);
  // Both read the same strings.
  if (tp && !secs) __builtin_trap();
  return 0;
}
