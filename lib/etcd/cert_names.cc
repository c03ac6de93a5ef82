#include "etcd/cert_names.h"

#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <memory>

namespace etcd {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool matches(const std::string& pattern, const std::string& host) {
  const std::string p = lower(pattern), h = lower(host);
  if (p.rfind("*.", 0) != 0) return p == h;
  const auto dot = h.find('.');
  // The wildcard stands for one non-empty label, never for several.
  return dot != std::string::npos && dot > 0 && h.substr(dot) == p.substr(1);
}

}  // namespace

cli::Result<std::vector<std::string>> certificate_dns_names(const std::string& pem, const std::string& what) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  if (!cert) return cli::make_error(cli::ErrorKind::Usage, "is not a PEM certificate", what);
  std::vector<std::string> out;
  auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr));
  if (sans == nullptr) return out;
  for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(sans, i);
    if (n->type != GEN_DNS) continue;
    const ASN1_IA5STRING* s = n->d.dNSName;
    out.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)), static_cast<std::size_t>(ASN1_STRING_length(s)));
  }
  GENERAL_NAMES_free(sans);
  return out;
}

bool names_cover(const std::vector<std::string>& names, const std::string& host) {
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return matches(n, host); });
}

}  // namespace etcd
