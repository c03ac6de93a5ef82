// A typed view over a legacy etcd.aenix.io/v1alpha1 EtcdCluster as stored
// (after the legacy webhook's defaulting): the names derived from its spec
// and the few facts every reader needs. The JSON stays the source of truth.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace op {

struct LegacyCluster {
  std::string name;
  std::string ns;
  std::string uid;
  bool deleting = false;  // metadata.deletionTimestamp set
  nlohmann::json metadata;
  nlohmann::json spec;

  static LegacyCluster from(const nlohmann::json& object);

  std::string headless_service() const;  // <hl>
  std::string client_service() const;    // <cs>
  std::string claim_name() const;        // <claim>: template metadata.name or "data"
  bool claim_name_is_custom() const;     // set and not "data"
  std::string tls_secret(const char* key) const;  // spec.security.tls.<key>, "" when unset
  bool enable_auth() const;
  // The etcd container of spec.podTemplate, or null.
  const nlohmann::json* etcd_container() const;
  std::string object_ref() const;  // etcdcluster.etcd.aenix.io "<ns>/<c>"
};


}  // namespace op
