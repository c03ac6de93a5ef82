// Member and cluster IDs are uint64. Output is always 16 lowercase hex digits
// (docs/rules.md#member-ids); input: up to 16 characters are hex (as
// etcdctl reads them), 17-20 decimal digits are decimal, "0x" is accepted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace etcd {

std::string format_member_id(std::uint64_t id);
base::Result<std::uint64_t> parse_member_id(std::string_view text);
// Always hex (the Go plugin's `remove-member` argument): at most 16 digits,
// "0x" accepted; never read as decimal.
base::Result<std::uint64_t> parse_hex_member_id(std::string_view text);

}  // namespace etcd
