// The body of an apiserver answer that is not a success (a Status, or what a
// proxy wrote), turned into an error. The first two bytes pick the HTTP
// status (400-599).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/status_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  int status = 400 + ((data[0] << 8) | data[1]) % 200;
  std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  kube::RequestContext ctx{"get", kube::resources::pods, "ns", "etcd-0", ""};
  auto e = kube::status_error(status, body, ctx);
  (void)e.one_line();
  (void)kube::is_not_found(e);
  (void)kube::is_conflict(e);
  (void)kube::is_already_exists(e);
  return 0;
}
