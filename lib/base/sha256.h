// SHA-256 over a stream of bytes (OpenSSL EVP), for snapshot trailers and
// upload checksums.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace base {

using Digest = std::array<std::uint8_t, 32>;

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view data);
  // Ends the stream; the object then starts over empty.
  Digest finish();
  // The digest of the bytes so far, the stream going on: a prefix's hash
  // and the whole stream's from one pass over the bytes.
  Digest peek() const;

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

Digest sha256(std::string_view data);
std::string to_hex(const Digest& d);

}  // namespace base
