#include "admin/kube_util.h"

#include "operator/legacy_cluster.h"  // op::string_at

namespace admin {

nlohmann::json guarded(const nlohmann::json& object, nlohmann::json patch) {
  patch["metadata"]["resourceVersion"] = op::string_at(object, "/metadata/resourceVersion");
  return patch;
}

}  // namespace admin
