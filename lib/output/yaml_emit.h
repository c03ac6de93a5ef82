// Block-style YAML from a JSON value, in the layout kubectl prints (sequence
// items at their parent key's indentation). Strings that a YAML 1.1 or 1.2
// reader would take for anything but the same string are double-quoted, so
// the output parses back to exactly the input.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace output {

std::string to_yaml(const nlohmann::ordered_json& value);

// True when `s` can stand as a plain (unquoted) YAML scalar and read back as
// the same string.
bool yaml_plain_safe(const std::string& s);

}  // namespace output
