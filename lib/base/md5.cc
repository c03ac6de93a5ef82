#include "base/md5.h"

#include <openssl/evp.h>

namespace base {

struct Md5::Ctx {
  EVP_MD_CTX* md = nullptr;
  Ctx() : md(EVP_MD_CTX_new()) { EVP_DigestInit_ex(md, EVP_md5(), nullptr); }
  ~Ctx() { EVP_MD_CTX_free(md); }
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;
};

Md5::Md5() : ctx_(std::make_unique<Ctx>()) {}
Md5::~Md5() = default;
Md5::Md5(Md5&&) noexcept = default;
Md5& Md5::operator=(Md5&&) noexcept = default;

void Md5::update(std::string_view data) {
  if (!data.empty()) EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}

Md5Digest Md5::finish() {
  Md5Digest d{};
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_->md, d.data(), &len);
  EVP_DigestInit_ex(ctx_->md, EVP_md5(), nullptr);
  return d;
}

Md5Digest md5(std::string_view data) {
  Md5 h;
  h.update(data);
  return h.finish();
}

std::string to_hex(const Md5Digest& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(32);
  for (auto b : d) {
    s += digits[b >> 4];
    s += digits[b & 0xf];
  }
  return s;
}

}  // namespace base
