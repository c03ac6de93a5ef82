#include "etcd/tls.h"

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/tls_certificate_provider.h>
#include <grpcpp/security/tls_certificate_verifier.h>
#include <grpcpp/security/tls_credentials_options.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <fstream>
#include <sstream>

namespace etcd {

namespace {

base::Error tls_error(std::string message, std::string object, std::string hint = {}) {
  auto e = base::make_error(base::ErrorKind::Usage, std::move(message), std::move(object), std::move(hint));
  e.reason = "InvalidTLS";
  return e;
}

base::Result<std::string> read_file(const std::string& path, const char* what) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return tls_error(std::string("cannot read the ") + what, "file \"" + path + "\"");
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioFree>;
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

BioPtr bio_of(const std::string& pem) { return BioPtr(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()))); }

// Counts certificates in a PEM bundle; 0 when none parses.
int count_certs(const std::string& pem) {
  auto bio = bio_of(pem);
  int n = 0;
  while (X509Ptr x{PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)}) ++n;
  return n;
}

// Where the PEM came from, for error text (never the PEM itself: it may be a key).
std::string origin(const std::string& file, const char* secret_key) {
  return file.empty() ? std::string("Secret key ") + secret_key : "file \"" + file + "\"";
}

}  // namespace

bool tls_requested(const TlsConfig& c) {
  return !c.ca_file.empty() || !c.cert_file.empty() || !c.key_file.empty() || !c.ca_pem.empty() ||
         !c.cert_pem.empty() || !c.key_pem.empty() || !c.server_name.empty() || c.insecure_skip_verify;
}

base::Result<TlsMaterial> load_tls(const TlsConfig& cfg) {
  TlsMaterial m;
  m.server_name = cfg.server_name;
  m.insecure_skip_verify = cfg.insecure_skip_verify;
  auto pick = [](const std::string& pem, const std::string& file, const char* what) -> base::Result<std::string> {
    if (!pem.empty()) return pem;
    if (file.empty()) return std::string();
    return read_file(file, what);
  };
  auto ca = pick(cfg.ca_pem, cfg.ca_file, "CA certificate");
  if (!ca) return std::move(ca).error();
  auto cert = pick(cfg.cert_pem, cfg.cert_file, "client certificate");
  if (!cert) return std::move(cert).error();
  auto key = pick(cfg.key_pem, cfg.key_file, "client key");
  if (!key) return std::move(key).error();
  m.ca_pem = std::move(*ca);
  m.cert_pem = std::move(*cert);
  m.key_pem = std::move(*key);

  const std::string ca_from = origin(cfg.ca_pem.empty() ? cfg.ca_file : "", "ca.crt");
  const std::string cert_from = origin(cfg.cert_pem.empty() ? cfg.cert_file : "", "tls.crt");
  const std::string key_from = origin(cfg.key_pem.empty() ? cfg.key_file : "", "tls.key");
  if (!m.ca_pem.empty() && count_certs(m.ca_pem) == 0) {
    return tls_error("the CA bundle holds no PEM certificate", ca_from);
  }
  if (m.cert_pem.empty() != m.key_pem.empty()) {
    return tls_error("a client certificate needs its key and a key its certificate",
                     m.cert_pem.empty() ? key_from : cert_from, "give both --cert and --key");
  }
  if (!m.cert_pem.empty()) {
    auto cb = bio_of(m.cert_pem);
    X509Ptr x{PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr)};
    if (!x) return tls_error("the client certificate is not a PEM certificate", cert_from);
    auto kb = bio_of(m.key_pem);
    std::unique_ptr<EVP_PKEY, PkeyFree> k{PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr)};
    if (!k) return tls_error("the client key is not an unencrypted PEM private key", key_from);
    if (X509_check_private_key(x.get(), k.get()) != 1) {
      return tls_error("the client key does not match the client certificate", key_from);
    }
  }
  return m;
}

std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const TlsMaterial& m) {
  if (!m.insecure_skip_verify) {
    grpc::SslCredentialsOptions o;
    o.pem_root_certs = m.ca_pem;
    o.pem_private_key = m.key_pem;
    o.pem_cert_chain = m.cert_pem;
    return grpc::SslCredentials(o);
  }
  // Skipping verification needs the (experimental) TLS credentials API: the
  // SSL one always verifies.
  namespace gx = grpc::experimental;
  std::vector<gx::IdentityKeyCertPair> ids;
  if (!m.cert_pem.empty()) ids.push_back({m.key_pem, m.cert_pem});
  auto provider = std::make_shared<gx::StaticDataCertificateProvider>(m.ca_pem, ids);
  gx::TlsChannelCredentialsOptions o;
  o.set_certificate_provider(provider);
  if (!m.ca_pem.empty()) o.watch_root_certs();
  if (!ids.empty()) o.watch_identity_key_cert_pairs();
  o.set_verify_server_certs(false);
  o.set_check_call_host(false);
  o.set_certificate_verifier(std::make_shared<gx::NoOpCertificateVerifier>());
  return grpc::experimental::TlsCredentials(o);
}

}  // namespace etcd
