// Computes the SHA-256 and size of everything streamed through it, passing
// the bytes on to another sink (if any). Uploads need the checksum of content
// they cannot hold in memory.
#pragma once

#include <cstdint>
#include <string>

#include "backup/sha256.h"
#include "backup/sink.h"

namespace backup {

class HashingSink final : public Sink {
 public:
  explicit HashingSink(Sink* next = nullptr) : next_(next) {}

  cli::Status write(std::string_view data) override;
  cli::Status commit() override;
  void written_sha256(const Digest& d) override {
    if (next_ != nullptr) next_->written_sha256(d);
  }
  void abort() noexcept override;

  std::uint64_t bytes() const { return bytes_; }
  // Valid after commit().
  const Digest& digest() const { return digest_; }
  std::string hex() const { return to_hex(digest_); }

 private:
  Sink* next_;
  Sha256 sha_;
  Digest digest_{};
  std::uint64_t bytes_ = 0;
};

}  // namespace backup
