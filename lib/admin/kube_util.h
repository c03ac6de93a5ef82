// What lib/admin's readers and writers of Kubernetes objects share.
#pragma once

#include <nlohmann/json.hpp>

#include "cli/error.h"

namespace admin {

// The object (or what the call looked for) is absent: a 404.
bool not_found(const cli::Error& e);

// `patch` with the object's metadata.resourceVersion: a PATCH body the API
// server answers with 409 when the object changed since it was read (I10).
nlohmann::json guarded(const nlohmann::json& object, nlohmann::json patch);

}  // namespace admin
