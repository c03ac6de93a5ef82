#include "operator/legacy_cluster.h"

#include "base/json_at.h"
#include "operator/names.h"

namespace op {

LegacyCluster LegacyCluster::from(const nlohmann::json& object) {
  LegacyCluster c;
  // Not an object (a broken answer): an empty cluster (no name, no spec)
  // rather than value()'s type_error (found by fuzz-legacy-translate); a
  // metadata or spec that is not an object reads as empty too.
  if (!object.is_object()) {
    c.metadata = nlohmann::json::object();
    c.spec = nlohmann::json::object();
    return c;
  }
  c.metadata = base::object_at(object, "/metadata");
  c.name = base::string_at(object, "/metadata/name");
  c.ns = base::string_at(object, "/metadata/namespace");
  c.uid = base::string_at(object, "/metadata/uid");
  c.deleting = base::find_at(object, "/metadata/deletionTimestamp") != nullptr;
  if (!c.metadata.is_object()) c.metadata = nlohmann::json::object();
  c.spec = base::object_at(object, "/spec");
  if (!c.spec.is_object()) c.spec = nlohmann::json::object();
  return c;
}

std::string LegacyCluster::headless_service() const {
  auto n = base::string_at(spec, "/headlessServiceTemplate/metadata/name");
  return n.empty() ? name + "-headless" : n;
}

std::string LegacyCluster::client_service() const {
  auto n = base::string_at(spec, "/serviceTemplate/metadata/name");
  return n.empty() ? name : n;
}

std::string LegacyCluster::claim_name() const {
  auto n = base::string_at(spec, "/storage/volumeClaimTemplate/metadata/name");
  return n.empty() ? std::string(kLegacyDefaultClaim) : n;
}

bool LegacyCluster::claim_name_is_custom() const { return claim_name() != kLegacyDefaultClaim; }

std::string LegacyCluster::tls_secret(const char* key) const {
  const auto* tls = base::find_at(spec, "/security/tls");
  if (tls == nullptr || !tls->is_object()) return {};
  auto it = tls->find(key);
  return it != tls->end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool LegacyCluster::enable_auth() const {
  return base::bool_at(spec, "/security/enableAuth");
}

const nlohmann::json* LegacyCluster::etcd_container() const {
  const auto* containers = base::find_at(spec, "/podTemplate/spec/containers");
  if (containers == nullptr || !containers->is_array()) return nullptr;
  for (const auto& c : *containers) {
    // string_at: a name that is not a string is no match, not a type_error
    // (found by fuzz-legacy-translate).
    if (c.is_object() && base::string_at(c, "/name") == kLegacyContainer) return &c;
  }
  return nullptr;
}

std::string LegacyCluster::object_ref() const {
  return "etcdcluster.etcd.aenix.io \"" + ns + "/" + name + "\"";
}

}  // namespace op
