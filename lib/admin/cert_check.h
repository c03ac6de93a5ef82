// The judgement of a cluster's certificates (docs/certificates.md): which
// Secrets hold them, what each says (subject, names, issuer, end), whether
// it chains to the CA the members trust, and whether its names cover every
// host the operator dials, today's members and those it creates later
// (<c>-<random>.<c>.<ns>.svc, docs/operator-contract.md "Certificates").
// Pure: the Secrets are inputs; tls.key is never read.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "etcd/cert_info.h"
#include "operator/legacy_cluster.h"

namespace admin {

// "" when the Secret's tls.crt covers such a name, or holds no certificate
// to judge; otherwise "Secret <name> (tls.crt names: a, b)" for a message.
std::string uncovered_certificate(const nlohmann::json& secret, const std::string& cluster, const std::string& ns);

// One certificate the members or the operator present, and where its CA is.
struct CertSource {
  std::string role;       // "server", "peer" or "client" (the operator's client certificate)
  std::string secret;     // holds tls.crt
  std::string ca_secret;  // holds the CA that verifies it (ca.crt, or a CA-only tls.crt)
};

// spec.tls of a v1alpha2 EtcdCluster: the server Secret (its ca.crt is what
// the operator and the members trust for client TLS), the operator's client
// Secret, the peer Secret (its own ca.crt); cert-manager's Secret names when
// spec.tls names an issuer instead.
std::vector<CertSource> cluster_cert_sources(const nlohmann::json& cluster);
// spec.security.tls of a legacy EtcdCluster: server, peer and client
// Secrets, each with its *TrustedCASecret, or its own ca.crt without one.
std::vector<CertSource> legacy_cert_sources(const op::LegacyCluster& legacy);

// The CA a Secret offers: ca.crt, or tls.crt when the Secret has no tls.key
// (a CA-only Secret, docs/rules.md#legacy-tls-material).
std::string ca_pem_of(const nlohmann::json& secret);

// What a certificate must cover: today's members' host names and one of the
// shape the operator gives the members it creates later.
struct HostNames {
  std::vector<std::string> today;
  std::string future;
};

// The expiry rule: a warning this many days ahead, a blocker once past.
inline constexpr int kExpiryWarningDays = 30;

struct CertProblem {
  std::string code;      // "missing", "not-pem", "chain", "san-today", "san-future", "expiring", "expired"
  std::string severity;  // "warning" or "blocker"
  std::string message;   // names the Secret; carries the fix where one exists
};

struct CertFinding {
  CertSource source;
  bool read = false;  // the Secret and its tls.crt were there and parsed
  etcd::CertInfo info;
  long days_left = 0;       // whole days until notAfter, negative once past
  std::string chain_error;  // "" verified against ca_secret's CA
  bool chain_checked = false;
  bool coverage_checked = false;  // not for the client certificate: TLS clients present it, nobody dials it
  std::vector<std::string> uncovered_today;
  bool covers_future = false;
  std::vector<CertProblem> problems;
};

// `secret` / `ca_secret` are null when the Secret does not exist.
CertFinding judge_certificate(const CertSource& source, const nlohmann::json* secret, const nlohmann::json* ca_secret,
                              const HostNames& hosts, const std::string& cluster, const std::string& ns,
                              std::time_t now);

nlohmann::ordered_json cert_finding_json(const CertFinding& f);

}  // namespace admin
