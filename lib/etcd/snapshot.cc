#include "etcd/snapshot.h"

#include <cstring>

#include "etcd/errors.h"

namespace etcd {

namespace {
constexpr std::size_t kTrailer = 32;
}

SnapshotReceiver::SnapshotReceiver(base::Sink& sink, SnapshotProgress progress, std::string object)
    : sink_(sink), progress_(std::move(progress)), object_(std::move(object)) {}

SnapshotReceiver::~SnapshotReceiver() {
  if (!closed_) abort();
}

base::Error SnapshotReceiver::corrupt(std::string message) {
  auto e = base::make_error(base::ErrorKind::Failed, std::move(message), object_,
                           "take the snapshot again; nothing was saved");
  e.reason = reason::kSnapshotCorrupt;
  return e;
}

base::Status SnapshotReceiver::add(std::string_view blob, std::uint64_t remaining_bytes) {
  ++messages_;
  last_remaining_ = remaining_bytes;
  if (blob.empty()) return {};
  // Hash all but the newest 32 bytes: the trailer is only known once the
  // stream ends.
  std::size_t keep = std::min(kTrailer, tail_.size() + blob.size());
  std::size_t release = tail_.size() + blob.size() - keep;
  std::size_t from_tail = std::min(release, tail_.size());
  sha_.update(std::string_view(tail_).substr(0, from_tail));
  std::size_t from_blob = release - from_tail;
  sha_.update(blob.substr(0, from_blob));
  std::string next = tail_.substr(from_tail);
  next.append(blob.substr(from_blob));
  tail_ = std::move(next);

  if (auto st = sink_.write(blob); !st) {
    abort();
    return st;
  }
  bytes_ += blob.size();
  if (progress_) progress_(bytes_, remaining_bytes == 0 ? 0 : bytes_ + remaining_bytes);
  return {};
}

base::Status SnapshotReceiver::finish() {
  if (closed_) return corrupt("snapshot stream already closed");
  if (messages_ == 0 || bytes_ <= kTrailer) {
    abort();
    return corrupt("snapshot stream ended after " + std::to_string(bytes_) + " bytes, before any data");
  }
  if (last_remaining_ != 0) {
    abort();
    return corrupt("snapshot stream cut short: " + std::to_string(last_remaining_) + " bytes were still announced");
  }
  auto digest = sha_.peek();
  if (tail_.size() != kTrailer || std::memcmp(digest.data(), tail_.data(), kTrailer) != 0) {
    abort();
    return corrupt("snapshot stream corrupt: its sha256 trailer does not match the data (" +
                   std::to_string(bytes_) + " bytes)");
  }
  sha_hex_ = base::to_hex(digest);
  sha_.update(tail_);
  auto whole = sha_.finish();
  stream_sha_hex_ = base::to_hex(whole);
  closed_ = true;
  sink_.written_sha256(whole);
  return sink_.commit();
}

void SnapshotReceiver::abort() noexcept {
  if (closed_) return;
  closed_ = true;
  sink_.abort();
}

}  // namespace etcd
