#include "etcd/server_version.h"

#include <charconv>

namespace etcd {

bool has_linearizable_member_list(std::string_view version) {
  int major = 0, minor = 0;
  const char* end = version.data() + version.size();
  auto [p, ec] = std::from_chars(version.data(), end, major);
  if (ec != std::errc() || p == end || *p != '.') return false;
  auto [q, ec2] = std::from_chars(p + 1, end, minor);
  if (ec2 != std::errc() || q == p + 1) return false;
  return major > 3 || (major == 3 && minor >= 5);
}

}  // namespace etcd
