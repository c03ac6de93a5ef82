#include "admin/bundle_redact.h"

#include <algorithm>
#include <cctype>

#include "base/json_at.h"
#include "base/text.h"
#include "kube/base64.h"

namespace admin {

namespace {

using json = nlohmann::json;

// Env names whose literal values are credentials more often than not.
bool credential_name(const std::string& name) {
  const std::string n = base::to_lower(name);
  for (const char* word : {"password", "passwd", "secret", "token", "key", "credential", "auth"}) {
    if (n.find(word) != std::string::npos) return true;
  }
  return false;
}

bool holds(const std::string& s, const std::vector<std::string>& values) {
  return std::any_of(values.begin(), values.end(), [&](const std::string& v) {
    return v.size() >= kSubstringMinimum ? s.find(v) != std::string::npos : s == v;
  });
}

void walk(json& node, const std::vector<std::string>& values) {
  if (node.is_string()) {
    if (holds(node.get_ref<const std::string&>(), values)) node = kRedacted;
    return;
  }
  if (node.is_array()) {
    for (auto& v : node) walk(v, values);
    return;
  }
  if (!node.is_object()) return;
  // A container's env entry {name, value}: the literal value of a
  // credential-like name goes; valueFrom references stay as they are.
  if (node.contains("name") && node["name"].is_string() && node.contains("value") && node["value"].is_string() &&
      credential_name(node["name"].get<std::string>())) {
    node["value"] = kRedacted;
  }
  for (auto it = node.begin(); it != node.end(); ++it) walk(it.value(), values);
}

}  // namespace

json secret_summary(const json& secret) {
  json out = {{"apiVersion", "v1"}, {"kind", "Secret"}};
  json meta = json::object();
  if (const auto it = secret.find("metadata"); it != secret.end() && it->is_object()) {
    for (const char* k : {"name", "namespace", "uid", "creationTimestamp", "labels", "ownerReferences"}) {
      if (it->contains(k)) meta[k] = (*it)[k];
    }
  }
  out["metadata"] = meta;
  if (secret.contains("type")) out["type"] = secret["type"];
  json keys = json::array();
  // A summary summarized again keeps its key names.
  if (const auto it = secret.find("keys"); it != secret.end() && it->is_array()) {
    for (const auto& k : *it) {
      if (k.is_string()) keys.push_back(k);
    }
  }
  for (const char* field : {"data", "stringData"}) {
    if (const auto it = secret.find(field); it != secret.end() && it->is_object()) {
      for (const auto& [k, v] : it->items()) keys.push_back(k);
    }
  }
  std::sort(keys.begin(), keys.end());
  out["keys"] = keys;
  return out;
}

std::vector<std::string> secret_values(const json& items) {
  std::vector<std::string> out;
  if (!items.is_array()) return out;
  for (const auto& s : items) {
    for (const char* field : {"data", "stringData"}) {
      const auto it = s.find(field);
      if (it == s.end() || !it->is_object()) continue;
      for (const auto& [k, v] : it->items()) {
        if (!v.is_string() || v.get_ref<const std::string&>().empty()) continue;
        const std::string& stored = v.get_ref<const std::string&>();
        out.push_back(stored);
        if (std::string(field) == "data") {
          if (auto d = kube::base64_decode(stored); d && !d->empty()) out.push_back(*d);
        } else {
          out.push_back(kube::base64_encode(stored));
        }
      }
    }
  }
  return out;
}

json redact(json object, const std::vector<std::string>& values) {
  if (object.is_object() && base::string_at(object, "/kind") == "Secret") return secret_summary(object);
  if (auto it = object.find("metadata"); it != object.end() && it->is_object()) {
    it->erase("managedFields");
    if (auto a = it->find("annotations"); a != it->end() && a->is_object()) {
      a->erase("kubectl.kubernetes.io/last-applied-configuration");
    }
  }
  if (auto it = object.find("items"); it != object.end() && it->is_array()) {
    for (auto& item : *it) item = redact(std::move(item), values);
  }
  walk(object, values);
  return object;
}

}  // namespace admin
