// etcd endpoints from --endpoints and MemberList client URLs. The first byte
// picks the default scheme.
#include <cstddef>
#include <cstdint>
#include <string>

#include "etcd/endpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string url(reinterpret_cast<const char*>(data + 1), size - 1);
  auto e = etcd::parse_endpoint(url, data[0] & 1);
  if (e) (void)etcd::grpc_target(e->target);
  return 0;
}
