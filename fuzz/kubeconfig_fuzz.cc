// kubeconfig files: YAML written by users and tools, parsed and merged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/kubeconfig.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto k = kube::parse_kubeconfig(text, "/fuzz/dir/config");
  if (!k) return 0;
  // Merging a file with itself must keep every name (the first one wins).
  kube::Kubeconfig merged = *k;
  kube::merge_kubeconfig(merged, *k);
  if (merged.clusters.size() != k->clusters.size() || merged.users.size() != k->users.size() ||
      merged.contexts.size() != k->contexts.size()) {
    __builtin_trap();
  }
  return 0;
}
