// `kubectl-etcd certs` (docs/certificates.md): the certificates of one
// cluster, a v1alpha2 EtcdCluster or a legacy etcd.aenix.io one before its
// adoption, each judged by cert_check against the hosts the operator dials.
// Reads Secrets' certificates only: tls.key is never read into the report.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/cert_check.h"
#include "base/result.h"
#include "output/render.h"

namespace kube {
class Client;
class ReadOnce;
}

namespace admin {

struct CertsRequest {
  std::string ns;
  std::string cluster;
  std::time_t now = 0;
};

struct CertsReport {
  std::string ns, cluster;
  std::string api;  // the EtcdCluster's apiVersion: v1alpha2, or the legacy one
  HostNames hosts;
  std::vector<CertFinding> certificates;  // empty: the cluster has no TLS
};

// The hosts of today's members of a v1alpha2 cluster (<m>.<svc>.<ns>.svc
// with each EtcdMember's own headless Service) and of a future member.
HostNames native_hosts(const std::string& cluster, const std::string& ns, const nlohmann::json& members);
// Of a legacy cluster: its member pods under its headless Service; after
// adoption the operator's new members live under <c>.
HostNames legacy_hosts(const op::LegacyCluster& legacy, const nlohmann::json& pods);

// The legacy cluster's certificates judged (the adoption plan's input too),
// its Secrets read through `secrets` (of its namespace).
base::Result<std::vector<CertFinding>> judge_legacy_certificates(kube::ReadOnce& secrets, const op::LegacyCluster& legacy,
                                                                 const nlohmann::json& pods, std::time_t now);

// Reads the v1alpha2 EtcdCluster <cluster>, or the legacy one when there is
// none; 6 when neither exists.
base::Result<CertsReport> certificate_report(kube::Client& kube, const CertsRequest& request);

nlohmann::ordered_json certs_document(const CertsReport& report);
output::View certs_view();
// Table and wide: the certificates, then the problems; json and yaml: the document.
std::string render_certs(const nlohmann::ordered_json& doc, output::Format format);
// 0 no problem; 1 any problem (it judges, like `check`).
int certs_exit_code(const CertsReport& report);

}  // namespace admin
