#include "base/json_at.h"

namespace base {

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

namespace {

std::string unescape(std::string_view token) {
  std::string out;
  for (size_t i = 0; i < token.size(); ++i) {
    if (token[i] == '~' && i + 1 < token.size() && (token[i + 1] == '0' || token[i + 1] == '1')) {
      out += token[i + 1] == '0' ? '~' : '/';
      ++i;
    } else {
      out += token[i];
    }
  }
  return out;
}

// The value at the pointer, nullptr when absent or null, or the error of
// the first step through a value that is neither object nor array.
Result<const nlohmann::json*> walk(const nlohmann::json& j, std::string_view pointer) {
  const nlohmann::json* at = &j;
  size_t pos = 0;
  while (pos < pointer.size()) {
    if (pointer[pos] != '/') return field_error(pointer.substr(0, pos), "a JSON pointer", j);
    size_t next = pointer.find('/', pos + 1);
    if (next == std::string_view::npos) next = pointer.size();
    std::string key = unescape(pointer.substr(pos + 1, next - pos - 1));
    if (at->is_null()) return static_cast<const nlohmann::json*>(nullptr);
    if (at->is_object()) {
      auto it = at->find(key);
      if (it == at->end()) return static_cast<const nlohmann::json*>(nullptr);
      at = &*it;
    } else if (at->is_array()) {
      if (key.empty() || key.find_first_not_of("0123456789") != std::string::npos || key.size() > 9) {
        return field_error(pointer.substr(0, pos), "an object", *at);
      }
      size_t index = std::stoul(key);
      if (index >= at->size()) return static_cast<const nlohmann::json*>(nullptr);
      at = &(*at)[index];
    } else {
      return field_error(pointer.substr(0, pos), "an object", *at);
    }
    pos = next;
  }
  return at->is_null() ? nullptr : at;
}

}  // namespace

const nlohmann::json* find_at(const nlohmann::json& j, std::string_view pointer) {
  auto v = walk(j, pointer);
  return v ? *v : nullptr;
}

std::string string_at(const nlohmann::json& j, std::string_view pointer) {
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

bool bool_at(const nlohmann::json& j, std::string_view pointer) {
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

long long int_at(const nlohmann::json& j, std::string_view pointer, long long absent) {
  const auto* v = find_at(j, pointer);
  if (v == nullptr || !v->is_number_integer()) return absent;
  if (v->is_number_unsigned() && v->get<unsigned long long>() > static_cast<unsigned long long>(LLONG_MAX)) return absent;
  return v->get<long long>();
}

const nlohmann::json& object_at(const nlohmann::json& j, std::string_view pointer) {
  static const nlohmann::json empty = nlohmann::json::object();
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_object() ? *v : empty;
}

const nlohmann::json& array_at(const nlohmann::json& j, std::string_view pointer) {
  static const nlohmann::json empty = nlohmann::json::array();
  const auto* v = find_at(j, pointer);
  return v != nullptr && v->is_array() ? *v : empty;
}

std::string field_name(std::string_view pointer) {
  std::string out;
  size_t pos = 0;
  while (pos < pointer.size()) {
    size_t next = pointer.find('/', pos + 1);
    if (next == std::string_view::npos) next = pointer.size();
    if (!out.empty() || pos > 0) out += '.';
    out += unescape(pointer.substr(pos + 1, next - pos - 1));
    pos = next;
  }
  if (!out.empty() && out[0] == '.') out.erase(0, 1);
  return out.empty() ? "the document" : out;
}

std::string json_type_name(const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    case nlohmann::json::value_t::string: return "a string";
    case nlohmann::json::value_t::boolean: return "a boolean";
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "an integer";
    case nlohmann::json::value_t::number_float: return "a number with a fraction or exponent";
    case nlohmann::json::value_t::binary: return "binary data";
    case nlohmann::json::value_t::discarded: return "unreadable JSON";
  }
  return "another type";
}

Error field_error(std::string_view pointer, std::string_view expected, const nlohmann::json& found) {
  return make_error(ErrorKind::Failed,
                    field_name(pointer) + ": expected " + std::string(expected) + ", found " + json_type_name(found));
}

Result<std::string> string_field(const nlohmann::json& j, std::string_view pointer, std::string absent) {
  auto v = walk(j, pointer);
  if (!v) return std::move(v).error();
  if (*v == nullptr) return absent;
  if (!(*v)->is_string()) return field_error(pointer, "a string", **v);
  return (*v)->get<std::string>();
}

Result<bool> bool_field(const nlohmann::json& j, std::string_view pointer, bool absent) {
  auto v = walk(j, pointer);
  if (!v) return std::move(v).error();
  if (*v == nullptr) return absent;
  if (!(*v)->is_boolean()) return field_error(pointer, "a boolean", **v);
  return (*v)->get<bool>();
}

Result<long long> int_field(const nlohmann::json& j, std::string_view pointer, long long absent, long long min,
                            long long max) {
  auto v = walk(j, pointer);
  if (!v) return std::move(v).error();
  if (*v == nullptr) return absent;
  const nlohmann::json& n = **v;
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!n.is_number_integer()) return field_error(pointer, min == LLONG_MIN && max == LLONG_MAX ? "an integer" : range, n);
  bool too_big = n.is_number_unsigned() && n.get<unsigned long long>() > static_cast<unsigned long long>(max < 0 ? 0 : max);
  long long x = too_big ? max : n.get<long long>();
  if (too_big || x < min || x > max) {
    return make_error(ErrorKind::Failed, field_name(pointer) + ": expected " + range + ", found " + n.dump());
  }
  return x;
}

Result<const nlohmann::json*> object_field(const nlohmann::json& j, std::string_view pointer) {
  auto v = walk(j, pointer);
  if (!v) return v;
  if (*v != nullptr && !(*v)->is_object()) return field_error(pointer, "an object", **v);
  return v;
}

Result<const nlohmann::json*> array_field(const nlohmann::json& j, std::string_view pointer) {
  auto v = walk(j, pointer);
  if (!v) return v;
  if (*v != nullptr && !(*v)->is_array()) return field_error(pointer, "an array", **v);
  return v;
}

}  // namespace base
