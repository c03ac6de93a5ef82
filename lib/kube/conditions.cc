#include "kube/conditions.h"

namespace kube {

std::string condition_status(const nlohmann::json& object, std::string_view type) {
  if (!object.is_object()) return "";
  const auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return "";
  const auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return "";
  for (const auto& c : *conditions) {
    if (!c.is_object()) continue;
    const auto t = c.find("type");
    if (t == c.end() || !t->is_string() || t->get_ref<const std::string&>() != type) continue;
    const auto s = c.find("status");
    return s != c.end() && s->is_string() ? s->get<std::string>() : "";
  }
  return "";
}

bool condition_true(const nlohmann::json& object, std::string_view type) {
  return condition_status(object, type) == "True";
}

}  // namespace kube
