#include "base/json_at.h"

namespace base {

const nlohmann::json* find_at(const nlohmann::json& j, const char* pointer) {
  nlohmann::json::json_pointer p(pointer);
  if (!j.contains(p)) return nullptr;
  const auto& v = j.at(p);
  return v.is_null() ? nullptr : &v;
}

std::string string_at(const nlohmann::json& j, const char* pointer) {
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

bool bool_at(const nlohmann::json& j, const char* pointer) {
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

long long int_at(const nlohmann::json& j, const char* pointer, long long absent) {
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_number_integer() ? v->get<long long>() : absent;
}

}  // namespace base
