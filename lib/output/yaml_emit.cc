#include "output/yaml_emit.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "base/text.h"

namespace output {
namespace {

bool iequals_any(const std::string& s, std::initializer_list<const char*> words) {
  const std::string lower = base::to_lower(s);
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return lower == w; });
}

bool looks_numeric(const std::string& s) {
  // Anything a YAML 1.1 reader could turn into a number: ints in any base,
  // floats, sexagesimal, .inf/.nan, with underscores.
  static const std::regex number(
      R"(^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$|^[-+]?0[xX][0-9a-fA-F_]+$|^[-+]?0[oO]?[0-7_]+$|^[-+]?0b[01_]+$|^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$)");
  return std::regex_match(s, number);
}

void emit_string(std::string& out, const std::string& s) {
  if (yaml_plain_safe(s)) {
    out += s;
  } else {
    // A JSON string literal is a valid YAML double-quoted scalar.
    out += nlohmann::ordered_json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
}

void emit_scalar(std::string& out, const nlohmann::ordered_json& v) {
  if (v.is_string()) {
    emit_string(out, v.get_ref<const std::string&>());
  } else if (v.is_null()) {
    out += "null";
  } else {
    out += v.dump();
  }
}

bool is_empty_container(const nlohmann::ordered_json& v) {
  return (v.is_object() || v.is_array()) && v.empty();
}

void emit(std::string& out, const nlohmann::ordered_json& v, int indent);

void emit_object(std::string& out, const nlohmann::ordered_json& v, int indent, bool first_inline) {
  bool first = true;
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (!(first && first_inline)) out.append(static_cast<size_t>(indent), ' ');
    first = false;
    emit_string(out, it.key());
    out += ':';
    const auto& child = it.value();
    if (child.is_object() && !child.empty()) {
      out += '\n';
      emit_object(out, child, indent + 2, false);
    } else if (child.is_array() && !child.empty()) {
      out += '\n';
      emit(out, child, indent);
    } else {
      out += ' ';
      if (is_empty_container(child)) {
        out += child.is_object() ? "{}" : "[]";
      } else {
        emit_scalar(out, child);
      }
      out += '\n';
    }
  }
}

void emit(std::string& out, const nlohmann::ordered_json& v, int indent) {
  if (v.is_object() && !v.empty()) {
    emit_object(out, v, indent, false);
  } else if (v.is_array() && !v.empty()) {
    for (const auto& item : v) {
      out.append(static_cast<size_t>(indent), ' ');
      out += "- ";
      if (item.is_object() && !item.empty()) {
        emit_object(out, item, indent + 2, true);
      } else if (item.is_array() && !item.empty()) {
        out += '\n';
        emit(out, item, indent + 2);
      } else {
        if (is_empty_container(item)) {
          out += item.is_object() ? "{}" : "[]";
        } else {
          emit_scalar(out, item);
        }
        out += '\n';
      }
    }
  } else {
    if (is_empty_container(v)) {
      out += v.is_object() ? "{}" : "[]";
    } else {
      emit_scalar(out, v);
    }
    out += '\n';
  }
}

}  // namespace

bool yaml_plain_safe(const std::string& s) {
  if (s.empty()) return false;
  if (s.front() == ' ' || s.back() == ' ') return false;
  static const std::string leading_indicators = "-?:,[]{}#&*!|>'\"%@`";
  if (leading_indicators.find(s.front()) != std::string::npos) {
    // "-x", "?x" and ":x" are plain in YAML 1.2 but not everywhere; quote them all.
    return false;
  }
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  if (s.find(": ") != std::string::npos || s.find(" #") != std::string::npos) return false;
  if (s.back() == ':') return false;
  if (iequals_any(s, {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"})) return false;
  if (s == "<<" || s == "=") return false;
  if (looks_numeric(s)) return false;
  // Timestamps would come back as dates from YAML 1.1 readers.
  static const std::regex date(R"(^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$)");
  if (std::regex_match(s, date)) return false;
  return true;
}

std::string to_yaml(const nlohmann::ordered_json& value) {
  std::string out;
  emit(out, value, 0);
  return out;
}

}  // namespace output
