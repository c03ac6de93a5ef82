#include "operator/meta.h"

#include "base/json_at.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"

namespace op {

namespace {

std::string string_in(const nlohmann::json& object, const char* map, std::string_view key) {
  const nlohmann::json* m = base::find_at(object, map);
  if (m == nullptr || !m->is_object()) return {};
  auto it = m->find(std::string(key));
  return it != m->end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

std::string label(const nlohmann::json& object, std::string_view key) {
  return string_in(object, "/metadata/labels", key);
}

std::string annotation(const nlohmann::json& object, std::string_view key) {
  return string_in(object, "/metadata/annotations", key);
}

const nlohmann::json* controller_of(const nlohmann::json& object) {
  const nlohmann::json* refs = base::find_at(object, "/metadata/ownerReferences");
  if (refs == nullptr || !refs->is_array()) return nullptr;
  for (const auto& r : *refs) {
    if (r.is_object() && base::bool_at(r, "/controller")) return &r;
  }
  return nullptr;
}

bool allows_deletion(const nlohmann::json& member) {
  return annotation(member, kAnnAllowDeletion) == kAllowDeletionValue;
}

nlohmann::json allow_deletion_patch() {
  return {{"metadata", {{"annotations", {{std::string(kAnnAllowDeletion), std::string(kAllowDeletionValue)}}}}}};
}

}  // namespace op
