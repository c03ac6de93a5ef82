#include "admin/cert_check.h"

#include "base/json_at.h"
#include "base/rfc3339.h"
#include "etcd/cert_names.h"
#include "kube/base64.h"
#include "operator/names.h"

namespace admin {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

std::string data_key(const json& secret, std::string_view key) {
  const std::string pointer = "/data/" + std::string(key);
  auto v = kube::base64_decode(base::string_at(secret, pointer.c_str()));
  return v ? *v : std::string();
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "none" : out;
}

std::string fix_for(const std::string& cluster, const std::string& ns) {
  return "add the DNS name *." + op::service_dns(cluster, ns) + " to it (or issue it with cert-manager)";
}

void add(CertFinding& f, const char* code, const char* severity, std::string message) {
  f.problems.push_back({code, severity, std::move(message)});
}

}  // namespace

std::string uncovered_certificate(const json& secret, const std::string& cluster, const std::string& ns) {
  const std::string name = base::string_at(secret, "/metadata/name");
  const std::string pem = data_key(secret, op::kSecretCert);
  if (pem.empty()) return {};
  auto names = etcd::certificate_dns_names(pem, "Secret " + name + " key " + std::string(op::kSecretCert));
  if (!names) return "Secret " + name + " (" + std::string(op::kSecretCert) + " is not a PEM certificate)";
  if (etcd::names_cover(*names, op::future_member_dns(cluster, ns))) return {};
  std::string list;
  for (const auto& n : *names) list += (list.empty() ? "" : ", ") + n;
  return "Secret " + name + " (" + std::string(op::kSecretCert) + " names: " + (list.empty() ? "none" : list) + ")";
}

std::vector<CertSource> cluster_cert_sources(const json& cluster) {
  std::vector<CertSource> out;
  const std::string c = base::string_at(cluster, "/metadata/name");
  if (cluster.contains("/spec/tls/client"_json_pointer)) {
    std::string server = base::string_at(cluster, "/spec/tls/client/serverSecretRef/name");
    if (server.empty()) server = op::cert_manager_server_secret(c);
    out.push_back({"server", server, server});
    std::string client = base::string_at(cluster, "/spec/tls/client/operatorClientSecretRef/name");
    if (client.empty() && cluster.contains("/spec/tls/client/certManager/operatorClientIssuerRef"_json_pointer)) {
      client = op::cert_manager_operator_client_secret(c);
    }
    // The members trust the server Secret's ca.crt for client certificates too.
    if (!client.empty()) out.push_back({"client", client, server});
  }
  if (cluster.contains("/spec/tls/peer"_json_pointer)) {
    std::string peer = base::string_at(cluster, "/spec/tls/peer/secretRef/name");
    if (peer.empty()) peer = op::cert_manager_peer_secret(c);
    out.push_back({"peer", peer, peer});
  }
  return out;
}

std::vector<CertSource> legacy_cert_sources(const op::LegacyCluster& legacy) {
  std::vector<CertSource> out;
  auto one = [&](const char* role, const char* key, const char* ca_key) {
    const std::string s = legacy.tls_secret(key);
    if (s.empty()) return;
    const std::string ca = legacy.tls_secret(ca_key);
    out.push_back({role, s, ca.empty() ? s : ca});
  };
  one("server", "serverSecret", "serverTrustedCASecret");
  one("peer", "peerSecret", "peerTrustedCASecret");
  one("client", "clientSecret", "clientTrustedCASecret");
  return out;
}

std::string ca_pem_of(const json& secret) {
  std::string ca = data_key(secret, op::kSecretCa);
  if (!ca.empty()) return ca;
  // Only whether a key is there, never its bytes.
  if (!base::string_at(secret, ("/data/" + std::string(op::kSecretKey)).c_str()).empty()) return {};
  return data_key(secret, op::kSecretCert);
}

CertFinding judge_certificate(const CertSource& source, const json* secret, const json* ca_secret,
                              const HostNames& hosts, const std::string& cluster, const std::string& ns,
                              std::time_t now) {
  CertFinding f;
  f.source = source;
  const std::string where = "Secret " + source.secret;
  if (secret == nullptr) {
    add(f, "missing", "warning", where + " (" + source.role + " certificate) does not exist");
    return f;
  }
  const std::string pem = data_key(*secret, op::kSecretCert);
  if (pem.empty()) {
    add(f, "missing", "warning", where + " has no " + std::string(op::kSecretCert));
    return f;
  }
  auto info = etcd::certificate_info(pem, where + " key " + std::string(op::kSecretCert));
  if (!info) {
    add(f, "not-pem", "warning", where + ": " + std::string(op::kSecretCert) + " is not a PEM certificate");
    return f;
  }
  f.read = true;
  f.info = std::move(info.value());

  const long seconds_left = static_cast<long>(f.info.not_after - now);
  f.days_left = seconds_left >= 0 ? seconds_left / 86400 : -((-seconds_left + 86399) / 86400);
  const std::string end = base::format_rfc3339(f.info.not_after);
  if (seconds_left <= 0) {
    add(f, "expired", "blocker", where + ": the " + source.role + " certificate expired at " + end + ": renew it");
  } else if (seconds_left < static_cast<long>(kExpiryWarningDays) * 86400) {
    add(f, "expiring", "warning", where + ": the " + source.role + " certificate expires at " + end + " (in " +
                                      std::to_string(f.days_left) + " days): renew it");
  }

  if (ca_secret == nullptr) {
    f.chain_error = "CA Secret " + source.ca_secret + " does not exist";
  } else {
    const std::string ca = ca_pem_of(*ca_secret);
    f.chain_error = ca.empty() ? "Secret " + source.ca_secret + " has no " + std::string(op::kSecretCa)
                               : etcd::verify_chain(pem, ca);
    f.chain_checked = !ca.empty();
  }
  if (!f.chain_error.empty()) {
    add(f, "chain", "warning", where + ": the " + source.role + " certificate does not verify against the CA of Secret " +
                                   source.ca_secret + " (" + f.chain_error + ")");
  }

  if (source.role == "client") return f;
  f.coverage_checked = true;
  for (const auto& h : hosts.today) {
    if (!etcd::names_cover(f.info.dns_names, h)) f.uncovered_today.push_back(h);
  }
  f.covers_future = hosts.future.empty() || etcd::names_cover(f.info.dns_names, hosts.future);
  if (!f.uncovered_today.empty()) {
    add(f, "san-today", "warning", where + ": the " + source.role + " certificate does not cover today's member " +
                                       joined(f.uncovered_today) + " (names: " + joined(f.info.dns_names) +
                                       "): TLS to it fails; " + fix_for(cluster, ns));
  }
  if (!f.covers_future) {
    add(f, "san-future", "warning", where + ": the " + source.role + " certificate does not cover " + hosts.future +
                                        ", the kind of name the operator gives the members it creates later (names: " +
                                        joined(f.info.dns_names) + "), so TLS to them fails: " + fix_for(cluster, ns));
  }
  return f;
}

ojson cert_finding_json(const CertFinding& f) {
  ojson o;
  o["role"] = f.source.role;
  o["secret"] = f.source.secret;
  o["key"] = std::string(op::kSecretCert);
  if (f.read) {
    o["subject"] = f.info.subject;
    o["issuer"] = f.info.issuer;
    o["dnsNames"] = f.info.dns_names;
    o["ipAddresses"] = f.info.ip_addresses;
    o["notBefore"] = base::format_rfc3339(f.info.not_before);
    o["notAfter"] = base::format_rfc3339(f.info.not_after);
    o["daysLeft"] = f.days_left;
    o["chain"] = {{"caSecret", f.source.ca_secret},
                  {"verified", f.chain_error.empty()},
                  {"error", f.chain_error}};
    if (f.coverage_checked) {
      o["coverage"] = {{"today", f.uncovered_today.empty()},
                       {"future", f.covers_future},
                       {"uncovered", f.uncovered_today}};
    }
  }
  ojson problems = ojson::array();
  for (const auto& p : f.problems) problems.push_back({{"code", p.code}, {"severity", p.severity}, {"message", p.message}});
  o["problems"] = problems;
  return o;
}

}  // namespace admin
