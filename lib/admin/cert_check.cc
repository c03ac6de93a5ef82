#include "admin/cert_check.h"

#include "etcd/cert_names.h"
#include "kube/base64.h"
#include "operator/legacy_cluster.h"  // op::string_at
#include "operator/names.h"

namespace admin {

std::string uncovered_certificate(const nlohmann::json& secret, const std::string& cluster, const std::string& ns) {
  const std::string name = op::string_at(secret, "/metadata/name");
  const std::string pointer = "/data/" + std::string(op::kSecretCert);
  auto pem = kube::base64_decode(op::string_at(secret, pointer.c_str()));
  if (!pem || pem->empty()) return {};
  auto names = etcd::certificate_dns_names(*pem, "Secret " + name + " key " + std::string(op::kSecretCert));
  if (!names) return "Secret " + name + " (" + std::string(op::kSecretCert) + " is not a PEM certificate)";
  if (etcd::names_cover(*names, op::future_member_dns(cluster, ns))) return {};
  std::string list;
  for (const auto& n : *names) list += (list.empty() ? "" : ", ") + n;
  return "Secret " + name + " (" + std::string(op::kSecretCert) + " names: " + (list.empty() ? "none" : list) + ")";
}

}  // namespace admin
