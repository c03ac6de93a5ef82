// A Maintenance.Snapshot stream as etcd sends it: db chunks, then the
// sha256 trailer. The first byte picks the chunk size (the last chunk may be
// cut anywhere), the second how remaining_bytes is announced (true, zero, or
// wrong). A stream the receiver accepts must end with the sha256 of what
// came before it, and the sink must have got every byte.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "base/sha256.h"
#include "base/sink.h"
#include "etcd/snapshot.h"

namespace {

class MemorySink final : public base::Sink {
 public:
  base::Status write(std::string_view d) override {
    data.append(d);
    return {};
  }
  base::Status commit() override {
    committed = true;
    return {};
  }
  void abort() noexcept override { aborted = true; }
  std::string data;
  bool committed = false;
  bool aborted = false;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  std::size_t chunk = (data[0] % 64) + 1;
  int announce = data[1] % 3;
  std::string_view stream(reinterpret_cast<const char*>(data + 2), size - 2);
  MemorySink sink;
  etcd::SnapshotReceiver r(sink, [](std::uint64_t, std::uint64_t) {}, "fuzz");
  std::string_view rest = stream;
  while (!rest.empty()) {
    auto blob = rest.substr(0, chunk);
    rest.remove_prefix(blob.size());
    std::uint64_t remaining = announce == 0 ? rest.size() : announce == 1 ? 0 : rest.size() * 2 + 1;
    if (!r.add(blob, remaining).ok()) return 0;
  }
  if (!r.finish().ok()) {
    if (sink.committed) __builtin_trap();  // a refused stream is never committed
    return 0;
  }
  if (!sink.committed || sink.data != stream || stream.size() < 32) __builtin_trap();
  auto digest = base::sha256(stream.substr(0, stream.size() - 32));
  if (std::memcmp(digest.data(), stream.data() + stream.size() - 32, 32) != 0) __builtin_trap();
  return 0;
}
