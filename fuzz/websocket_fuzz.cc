// What the apiserver sends on a port-forward's WebSocket: the HTTP upgrade
// answer, then server frames. The input is the whole byte stream from the
// server; the first byte picks the size of the pieces it arrives in.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "kube/websocket.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t piece = data[0] + 1;
  std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  auto head = kube::ws::parse_upgrade_response(in);
  if (head && *head) {
    (void)kube::ws::check_upgrade(**head, "dGhlIHNhbXBsZSBub25jZQ==", "v4.channel.k8s.io");
    in.remove_prefix(std::min((*head)->header_size, in.size()));
  }
  kube::ws::Decoder d(1u << 16);
  while (!in.empty()) {
    auto part = in.substr(0, piece);
    in.remove_prefix(part.size());
    d.feed(part);
    while (auto f = d.next()) {
      if (!*f) return 0;
    }
  }
  return 0;
}
