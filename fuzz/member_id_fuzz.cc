// Member IDs as users type them (hex, 0x-hex, long decimal).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "etcd/member_id.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto id = etcd::parse_member_id(text);
  if (id) {
    // What is printed reads back as the same ID.
    auto again = etcd::parse_member_id(etcd::format_member_id(*id));
    if (!again || *again != *id) __builtin_trap();
  }
  auto hex = etcd::parse_hex_member_id(text);
  if (hex) {
    auto again = etcd::parse_hex_member_id(etcd::format_member_id(*hex));
    if (!again || *again != *hex) __builtin_trap();
  }
  return 0;
}
