// What a PEM certificate says about itself (subject, issuer, names, end of
// validity) and whether it chains to a CA, so that `kubectl-etcd certs` and
// the adoption plan judge the certificates members serve
// (docs/certificates.md). Reads public certificates only, never a key.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "base/result.h"

namespace etcd {

struct CertInfo {
  std::string subject;  // one line, RFC 2253 ("CN=etcd-0,O=x")
  std::string issuer;
  std::vector<std::string> dns_names;  // DNS subjectAltNames, in certificate order
  std::vector<std::string> ip_addresses;
  std::time_t not_before = 0;
  std::time_t not_after = 0;  // seconds since the epoch, UTC
  bool is_ca = false;         // basicConstraints CA:TRUE
};

// The first certificate of `pem` (the leaf of a bundle). `what` names the
// PEM's origin in errors (never the PEM).
base::Result<CertInfo> certificate_info(const std::string& pem, const std::string& what);

// "" when the first certificate of `leaf_pem` chains to one of the
// certificates in `ca_pem` (X509_verify_cert; the other certificates of
// `leaf_pem` may serve as intermediates), otherwise OpenSSL's reason.
// Validity times are not judged here (the caller reports expiry on its own),
// so an expired certificate still shows whether its signature chains.
std::string verify_chain(const std::string& leaf_pem, const std::string& ca_pem);

}  // namespace etcd
