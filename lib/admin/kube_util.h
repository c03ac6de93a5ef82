// What lib/admin's readers and writers of Kubernetes objects share.
#pragma once

#include <nlohmann/json.hpp>

namespace admin {

// `patch` with the object's metadata.resourceVersion: a PATCH body the API
// server answers with 409 when the object changed since it was read (I10).
nlohmann::json guarded(const nlohmann::json& object, nlohmann::json patch);

}  // namespace admin
