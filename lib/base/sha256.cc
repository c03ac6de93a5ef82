#include "base/sha256.h"

#include <openssl/evp.h>

namespace base {

struct Sha256::Ctx {
  EVP_MD_CTX* md = nullptr;
  Ctx() : md(EVP_MD_CTX_new()) { EVP_DigestInit_ex(md, EVP_sha256(), nullptr); }
  ~Ctx() { EVP_MD_CTX_free(md); }
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {}
Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(std::string_view data) {
  if (!data.empty()) EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}

Digest Sha256::finish() {
  Digest d{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_->md, d.data(), &len);
  EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr);
  return d;
}

Digest Sha256::peek() const {
  Digest d{};
  unsigned int len = 0;
  EVP_MD_CTX* copy = EVP_MD_CTX_new();
  EVP_MD_CTX_copy_ex(copy, ctx_->md);
  EVP_DigestFinal_ex(copy, d.data(), &len);
  EVP_MD_CTX_free(copy);
  return d;
}

Digest sha256(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish();
}

std::string to_hex(const Digest& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(64);
  for (auto b : d) {
    s += digits[b >> 4];
    s += digits[b & 0xf];
  }
  return s;
}

}  // namespace base
