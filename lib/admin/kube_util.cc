#include "admin/kube_util.h"

#include "base/json_at.h"

namespace admin {

nlohmann::json guarded(const nlohmann::json& object, nlohmann::json patch) {
  patch["metadata"]["resourceVersion"] = base::string_at(object, "/metadata/resourceVersion");
  return patch;
}

}  // namespace admin
