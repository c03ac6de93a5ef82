#include "etcd/cert_info.h"

#include <arpa/inet.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <memory>

namespace etcd {

namespace {

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using Cert = std::unique_ptr<X509, decltype(&X509_free)>;

Bio memory(const std::string& pem) { return {BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), &BIO_free}; }

// Every certificate of a PEM bundle, in order; non-certificate blocks (a
// key, should a Secret mix them) are skipped without being decoded.
std::vector<Cert> read_all(const std::string& pem) {
  std::vector<Cert> out;
  Bio bio = memory(pem);
  while (X509* x = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) out.emplace_back(x, &X509_free);
  ERR_clear_error();
  return out;
}

std::string name_line(const X509_NAME* name) {
  Bio out{BIO_new(BIO_s_mem()), &BIO_free};
  X509_NAME_print_ex(out.get(), name, 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  long n = BIO_get_mem_data(out.get(), &data);
  return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

std::time_t seconds(const ASN1_TIME* t) {
  std::tm tm{};
  if (ASN1_TIME_to_tm(t, &tm) != 1) return 0;
  return timegm(&tm);
}

std::string ip_text(const ASN1_OCTET_STRING* s) {
  char buf[INET6_ADDRSTRLEN] = {};
  const unsigned char* d = ASN1_STRING_get0_data(s);
  const int n = ASN1_STRING_length(s);
  if (n == 4) inet_ntop(AF_INET, d, buf, sizeof buf);
  else if (n == 16) inet_ntop(AF_INET6, d, buf, sizeof buf);
  return buf;
}

}  // namespace

base::Result<CertInfo> certificate_info(const std::string& pem, const std::string& what) {
  Bio bio = memory(pem);
  Cert cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
  ERR_clear_error();
  if (!cert) return base::make_error(base::ErrorKind::Failed, "is not a PEM certificate", what);
  CertInfo info;
  info.subject = name_line(X509_get_subject_name(cert.get()));
  info.issuer = name_line(X509_get_issuer_name(cert.get()));
  info.not_before = seconds(X509_get0_notBefore(cert.get()));
  info.not_after = seconds(X509_get0_notAfter(cert.get()));
  info.is_ca = X509_check_ca(cert.get()) == 1;
  auto* sans = static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert.get(), NID_subject_alt_name, nullptr, nullptr));
  if (sans != nullptr) {
    for (int i = 0; i < sk_GENERAL_NAME_num(sans); ++i) {
      const GENERAL_NAME* n = sk_GENERAL_NAME_value(sans, i);
      if (n->type == GEN_DNS) {
        const ASN1_IA5STRING* s = n->d.dNSName;
        info.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                    static_cast<std::size_t>(ASN1_STRING_length(s)));
      } else if (n->type == GEN_IPADD) {
        info.ip_addresses.push_back(ip_text(n->d.iPAddress));
      }
    }
    GENERAL_NAMES_free(sans);
  }
  return info;
}

std::string verify_chain(const std::string& leaf_pem, const std::string& ca_pem) {
  auto chain = read_all(leaf_pem);
  if (chain.empty()) return "not a PEM certificate";
  auto cas = read_all(ca_pem);
  if (cas.empty()) return "the CA is not a PEM certificate";
  std::unique_ptr<X509_STORE, decltype(&X509_STORE_free)> store(X509_STORE_new(), &X509_STORE_free);
  for (auto& ca : cas) X509_STORE_add_cert(store.get(), ca.get());
  std::unique_ptr<STACK_OF(X509), void (*)(STACK_OF(X509)*)> untrusted(sk_X509_new_null(),
                                                                      [](STACK_OF(X509)* s) { sk_X509_free(s); });
  for (std::size_t i = 1; i < chain.size(); ++i) sk_X509_push(untrusted.get(), chain[i].get());
  std::unique_ptr<X509_STORE_CTX, decltype(&X509_STORE_CTX_free)> ctx(X509_STORE_CTX_new(), &X509_STORE_CTX_free);
  if (X509_STORE_CTX_init(ctx.get(), store.get(), chain.front().get(), untrusted.get()) != 1) {
    ERR_clear_error();
    return "cannot set up the verification";
  }
  X509_STORE_CTX_set_flags(ctx.get(), X509_V_FLAG_NO_CHECK_TIME | X509_V_FLAG_PARTIAL_CHAIN);
  const int ok = X509_verify_cert(ctx.get());
  ERR_clear_error();
  if (ok == 1) return {};
  return X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx.get()));
}

}  // namespace etcd
