#include "admin/certs.h"

#include "base/json_at.h"
#include "kube/client.h"
#include "kube/read_once.h"
#include "kube/resource.h"
#include "kube/status_error.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

base::Result<std::vector<CertFinding>> judge_all(kube::ReadOnce& secrets, const std::string& ns, const std::string& c,
                                                 const std::vector<CertSource>& sources, const HostNames& hosts,
                                                 std::time_t now) {
  std::vector<CertFinding> out;
  for (const auto& src : sources) {
    // A Secret that does not exist is judged as missing; other errors fail.
    auto s = secrets.get(src.secret);
    if (!s && !kube::is_not_found(s.error())) return std::move(s).error();
    auto ca = secrets.get(src.ca_secret);
    if (!ca && !kube::is_not_found(ca.error())) return std::move(ca).error();
    out.push_back(judge_certificate(src, s ? &*s : nullptr, ca ? &*ca : nullptr, hosts, c, ns, now));
  }
  return out;
}

}  // namespace

HostNames native_hosts(const std::string& cluster, const std::string& ns, const json& members) {
  HostNames h;
  if (members.is_array()) {
    for (const auto& m : members) {
      const std::string name = base::string_at(m, "/metadata/name");
      std::string svc = op::annotation(m, op::kAnnHeadlessServiceName);
      if (svc.empty()) svc = cluster;
      if (!name.empty()) h.today.push_back(op::member_dns(name, svc, ns));
    }
  }
  h.future = op::future_member_dns(cluster, ns);
  return h;
}

HostNames legacy_hosts(const op::LegacyCluster& legacy, const json& pods) {
  HostNames h;
  if (pods.is_array()) {
    for (const auto& p : pods) {
      const std::string name = base::string_at(p, "/metadata/name");
      if (op::is_legacy_member_pod(legacy.name, name)) {
        h.today.push_back(op::member_dns(name, legacy.headless_service(), legacy.ns));
      }
    }
  }
  h.future = op::future_member_dns(legacy.name, legacy.ns);
  return h;
}

base::Result<std::vector<CertFinding>> judge_legacy_certificates(kube::ReadOnce& secrets, const op::LegacyCluster& legacy,
                                                                 const json& pods, std::time_t now) {
  return judge_all(secrets, legacy.ns, legacy.name, legacy_cert_sources(legacy), legacy_hosts(legacy, pods), now);
}

base::Result<CertsReport> certificate_report(kube::Client& kube, const CertsRequest& r) {
  CertsReport out;
  out.ns = r.ns;
  out.cluster = r.cluster;
  auto cluster = kube.get(op::resources::etcdclusters, r.ns, r.cluster);
  if (cluster) {
    out.api = std::string(op::kApiVersion);
    kube::ListOptions lo;
    lo.label_selector = std::string(op::kLabelCluster) + "=" + r.cluster;
    auto members = kube.list_all(op::resources::etcdmembers, r.ns, lo);
    if (!members) return std::move(members).error();
    out.hosts = native_hosts(r.cluster, r.ns, base::array_at(*members, "/items"));
    kube::ReadOnce secrets(kube, kube::resources::secrets, r.ns);
    auto found = judge_all(secrets, r.ns, r.cluster, cluster_cert_sources(*cluster), out.hosts, r.now);
    if (!found) return std::move(found).error();
    out.certificates = std::move(found.value());
    return out;
  }
  if (!kube::is_not_found(cluster.error())) return std::move(cluster).error();
  auto legacy_object = kube.get(op::resources::legacy_etcdclusters, r.ns, r.cluster);
  if (!legacy_object) {
    if (!kube::is_not_found(legacy_object.error())) return std::move(legacy_object).error();
    return base::make_error(base::ErrorKind::NotFound, "not found (neither " + std::string(op::kApiVersion) + " nor " +
                                                           std::string(op::kLegacyApiVersion) + ")",
                            "EtcdCluster " + r.ns + "/" + r.cluster, "check -n and -c");
  }
  const op::LegacyCluster legacy = op::LegacyCluster::from(*legacy_object);
  out.api = std::string(op::kLegacyApiVersion);
  kube::ListOptions lo;
  lo.label_selector = op::legacy_selector(r.cluster);
  auto pods = kube.list_all(kube::resources::pods, r.ns, lo);
  if (!pods) return std::move(pods).error();
  out.hosts = legacy_hosts(legacy, base::array_at(*pods, "/items"));
  kube::ReadOnce secrets(kube, kube::resources::secrets, r.ns);
  auto found = judge_legacy_certificates(secrets, legacy, base::array_at(*pods, "/items"), r.now);
  if (!found) return std::move(found).error();
  out.certificates = std::move(found.value());
  return out;
}

ojson certs_document(const CertsReport& r) {
  ojson doc;
  doc["cluster"] = r.cluster;
  doc["namespace"] = r.ns;
  doc["apiVersion"] = r.api;
  doc["hosts"] = {{"today", r.hosts.today}, {"future", r.hosts.future}};
  doc["certificates"] = ojson::array();
  doc["problems"] = ojson::array();
  for (const auto& f : r.certificates) {
    doc["certificates"].push_back(cert_finding_json(f));
    for (const auto& p : f.problems) {
      doc["problems"].push_back({{"code", p.code}, {"severity", p.severity}, {"secret", f.source.secret},
                                 {"message", p.message}});
    }
  }
  return doc;
}

output::View certs_view() {
  output::View v;
  v.rows = "certificates";
  v.columns = {{"ROLE", "role"},       {"SECRET", "secret"},         {"SUBJECT", "subject"},
               {"NOT AFTER", "notAfter"}, {"DAYS", "daysLeft"},      {"CHAIN", "chain.verified"},
               {"TODAY", "coverage.today"}, {"FUTURE", "coverage.future"}, {"ISSUER", "issuer", output::Cell::Text, true},
               {"DNS NAMES", "dnsNames", output::Cell::Text, true}};
  v.empty_message = "no TLS: the cluster has no certificates";
  return v;
}

std::string render_certs(const ojson& doc, output::Format format) {
  std::string out = output::render(doc, certs_view(), format);
  if ((format != output::Format::Table && format != output::Format::Wide) || doc["problems"].empty()) return out;
  output::View v;
  v.rows = "problems";
  v.columns = {{"CODE", "code"}, {"SEVERITY", "severity"}, {"MESSAGE", "message"}};
  return out + "\nPROBLEMS\n" + output::render(doc, v, format);
}

int certs_exit_code(const CertsReport& r) {
  for (const auto& f : r.certificates) {
    if (!f.problems.empty()) return 1;
  }
  return 0;
}

}  // namespace admin
