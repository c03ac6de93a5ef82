// MD5 over a stream of bytes (OpenSSL EVP). Not for security: S3 reports an
// object's ETag as MD5s of its parts, and the read-back check recomputes them.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace base {

using Md5Digest = std::array<std::uint8_t, 16>;

class Md5 {
 public:
  Md5();
  ~Md5();
  Md5(Md5&&) noexcept;
  Md5& operator=(Md5&&) noexcept;
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;

  void update(std::string_view data);
  // Ends the stream; the object then starts over empty.
  Md5Digest finish();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

Md5Digest md5(std::string_view data);
std::string to_hex(const Md5Digest& d);

}  // namespace base
