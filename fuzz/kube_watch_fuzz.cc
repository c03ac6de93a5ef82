// A watch stream (newline-delimited JSON events) as it arrives: the first
// byte picks the size of the pieces the bytes come in.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/watch.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t piece = data[0] + 1;
  std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  kube::WatchDecoder d;
  auto pred = kube::condition_is("Ready");
  auto phase = kube::field_equals("/status/phase", "Running");
  while (!in.empty()) {
    auto part = in.substr(0, piece);
    in.remove_prefix(part.size());
    bool go = d.feed(part, [&](kube::WatchEvent&& ev) {
      (void)pred(&ev.object);
      (void)phase(&ev.object);
      return true;
    });
    if (!go) break;
  }
  return 0;
}
