// Discovery (docs/rules.md#discovery): what exists in
// the scope, read with one LIST per kind and scope (never a GET per object),
// so that planning many clusters costs a fixed number of requests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "kube/client.h"

namespace migrate {

struct Inventory {
  std::string scope;  // the namespace, "" for every namespace
  // The three legacy kinds; "not served" is distinct from "no objects".
  bool clusters_served = false, backups_served = false, schedules_served = false;
  std::vector<nlohmann::json> clusters, backups, schedules;  // API order (namespace, name)

  // Filled by read_scope() once something is to be planned.
  std::vector<std::string> new_api_missing;  // unserved v1alpha2 resources (docs/rules.md#discovery)
  std::vector<nlohmann::json> new_clusters, new_members, snapshots;
  std::vector<nlohmann::json> pods;      // labelled app.kubernetes.io/name=etcd
  std::vector<nlohmann::json> pvcs;
  std::vector<nlohmann::json> services;
  // "mutatingwebhookconfigurations/<name>" of webhooks on group etcd.aenix.io (docs/rules.md#legacy-webhooks).
  std::vector<std::string> legacy_webhooks;
  std::vector<nlohmann::json> legacy_webhook_objects;  // the same configurations, in the same order

  bool empty() const { return clusters.empty() && backups.empty() && schedules.empty(); }
};

// Lists the three legacy kinds.
base::Result<Inventory> discover(kube::Client& client, const std::string& ns);

// Lists what planning reads beside them: the new API's objects (after
// checking they are served), the etcd pods, PVCs and Services of the scope,
// and the legacy webhook configurations (which may be unreadable: then the
// list stays empty and `warning` says why).
base::Status read_scope(kube::Client& client, Inventory& inventory, std::string& warning);

// An object's metadata.name and metadata.namespace, empty when absent or not
// strings. Without a copy: planning looks a fleet's members up in lists of
// the whole namespace, for every cluster.
std::string_view object_name(const nlohmann::json& o);
std::string_view object_namespace(const nlohmann::json& o);

// The objects of one namespace and name in a list, or nullptr.
const nlohmann::json* find_object(const std::vector<nlohmann::json>& objects, const std::string& ns,
                                  const std::string& name);

}  // namespace migrate
