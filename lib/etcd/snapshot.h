// The receiving side of Maintenance.Snapshot, apart from gRPC so that it can
// be tested with recorded streams. etcd sends the db in chunks and then one
// message with the sha256 of everything before it (docs/rules.md#snapshot-stream); the whole
// stream goes to the sink unchanged (the file is then what etcdctl saves,
// db ‖ sha256, and `etcdutl snapshot restore` checks the trailer again),
// while the last 32 bytes seen are held back from the running hash. At the
// end that hash gives both the db's digest (to check the trailer) and, with
// the held-back bytes added, the whole stream's (for the sink): one pass over
// the bytes for both. Memory stays constant whatever the db size.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "base/sha256.h"
#include "base/sink.h"

namespace etcd {

// done = bytes received so far; total = the size the stream announced
// (done + remaining_bytes of the latest message), 0 when unknown.
using SnapshotProgress = std::function<void(std::uint64_t done, std::uint64_t total)>;

class SnapshotReceiver {
 public:
  SnapshotReceiver(base::Sink& sink, SnapshotProgress progress, std::string object);
  ~SnapshotReceiver();
  SnapshotReceiver(const SnapshotReceiver&) = delete;
  SnapshotReceiver& operator=(const SnapshotReceiver&) = delete;

  // One stream message. A failed write aborts the sink.
  base::Status add(std::string_view blob, std::uint64_t remaining_bytes);
  // The stream ended cleanly: checks the trailer, then commits the sink; a
  // stream cut short or with a wrong trailer aborts it (no file is left).
  base::Status finish();
  // The stream failed: drop what the sink holds.
  void abort() noexcept;

  std::uint64_t bytes() const { return bytes_; }
  const std::string& sha256_hex() const { return sha_hex_; }
  // Of every byte given to the sink, trailer included; the sink is told it
  // too (Sink::written_sha256) before its commit.
  const std::string& stream_sha256_hex() const { return stream_sha_hex_; }

 private:
  base::Error corrupt(std::string message);

  base::Sink& sink_;
  SnapshotProgress progress_;
  std::string object_;
  base::Sha256 sha_;
  std::string tail_;  // the last (at most) 32 bytes, not hashed yet
  std::uint64_t bytes_ = 0;
  std::uint64_t last_remaining_ = 0;
  std::size_t messages_ = 0;
  std::string sha_hex_;
  std::string stream_sha_hex_;
  bool closed_ = false;
};

}  // namespace etcd
