#include "etcd/member_id.h"

#include <charconv>

namespace etcd {

std::string format_member_id(std::uint64_t id) {
  static const char* digits = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i) {
    s[static_cast<size_t>(i)] = digits[id & 0xf];
    id >>= 4;
  }
  return s;
}

base::Result<std::uint64_t> parse_member_id(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return base::make_error(base::ErrorKind::Usage, "invalid member ID \"" + std::string(text) + "\": " + why, {},
                           "give 16 hex digits as printed (e.g. 8e9e05c52164694d) or the decimal ID");
  };
  std::string_view s = text;
  int base = 16;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    if (s.size() > 16) return bad("more than 16 hex digits");
  } else if (s.size() > 16) {
    if (s.size() > 20) return bad("too long");
    base = 10;
  }
  if (s.empty()) return bad("empty");
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec == std::errc::result_out_of_range) return bad("out of range");
  if (ec != std::errc() || end != s.data() + s.size()) {
    return bad(base == 16 ? "not hexadecimal" : "not a decimal number");
  }
  return v;
}

base::Result<std::uint64_t> parse_hex_member_id(std::string_view text) {
  std::string_view digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits.remove_prefix(2);
  if (digits.size() > 16) {
    return base::make_error(base::ErrorKind::Usage, "invalid member ID \"" + std::string(text) + "\": more than 16 hex digits",
                           {}, "give the ID in hex as `kubectl etcd member list` prints it");
  }
  return parse_member_id(text);
}

}  // namespace etcd
