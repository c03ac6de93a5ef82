// Reading fields of Kubernetes objects by JSON pointer without throwing:
// an absent field is an empty string or a null pointer, never an exception.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace base {

// The string at a JSON pointer, "" when absent or not a string.
std::string string_at(const nlohmann::json& j, const char* pointer);
// The JSON at a pointer, or nullptr when absent (or JSON null).
const nlohmann::json* find_at(const nlohmann::json& j, const char* pointer);
// The boolean at a pointer; false when absent or not a boolean.
bool bool_at(const nlohmann::json& j, const char* pointer);
// The integer at a pointer; `absent` when absent or not an integer.
long long int_at(const nlohmann::json& j, const char* pointer, long long absent = 0);

}  // namespace base
