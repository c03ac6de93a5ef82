// The port-forward channel demux over the server's binary messages: the
// input is a sequence of messages, each a length byte then that many bytes.
// The port is the etcd client port.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/channel_demux.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  kube::pf::Demux demux(2379);
  while (!in.empty()) {
    std::size_t n = static_cast<std::uint8_t>(in[0]);
    in.remove_prefix(1);
    auto msg = in.substr(0, n);
    in.remove_prefix(msg.size());
    auto d = demux.take(msg);
    if (!d) return 0;
    // The payload is a view into the message.
    if (!d->payload.empty() &&
        (d->payload.data() < msg.data() || d->payload.data() + d->payload.size() > msg.data() + msg.size())) {
      __builtin_trap();
    }
    (void)demux.ready();
  }
  return 0;
}
