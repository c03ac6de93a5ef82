#include "operator/watch.h"

#include <algorithm>

#include "base/json_at.h"
#include "base/text.h"
#include "operator/names.h"

namespace op {

namespace {

// The value of --watch-namespace in an argument list: "--flag=v", "-flag=v",
// or the flag and its value as two arguments (Go's flag package takes all).
bool flag_value(const nlohmann::json& args, std::string& out) {
  if (!args.is_array()) return false;
  const std::string name(kWatchNamespaceArg.substr(2));  // "watch-namespace"
  bool found = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_string()) continue;
    std::string a = args[i].get<std::string>();
    std::size_t dashes = a.rfind("--", 0) == 0 ? 2 : a.rfind('-', 0) == 0 ? 1 : 0;
    if (dashes == 0) continue;
    a = a.substr(dashes);
    if (a.rfind(name + "=", 0) == 0) {
      out = a.substr(name.size() + 1);
      found = true;
    } else if (a == name && i + 1 < args.size() && args[i + 1].is_string()) {
      out = args[++i].get<std::string>();
      found = true;
    }
  }
  return found;
}

}  // namespace

std::vector<std::string> watched_namespaces(const nlohmann::json& container) {
  std::string value;
  for (const auto& e : base::array_at(container, "/env")) {
    if (base::string_at(e, "/name") != kWatchNamespaceEnv) continue;
    // A value from elsewhere (a ConfigMap, a field) cannot be known here.
    value = e.contains("value") && e["value"].is_string() ? e["value"].get<std::string>() : std::string();
  }
  flag_value(base::array_at(container, "/command"), value);
  flag_value(base::array_at(container, "/args"), value);
  std::vector<std::string> out;
  for (const auto& item : base::split(value, ',')) {
    if (auto name = base::trim(item); !name.empty()) out.push_back(std::move(name));
  }
  return out;
}

bool watches(const std::vector<std::string>& watched, const std::string& ns) {
  return watched.empty() || std::find(watched.begin(), watched.end(), ns) != watched.end();
}

}  // namespace op
