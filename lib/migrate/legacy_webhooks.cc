#include "migrate/legacy_webhooks.h"

#include <algorithm>

#include "operator/legacy_cluster.h"
#include "operator/names.h"

namespace migrate {

using json = nlohmann::json;

namespace {

bool has_string(const json* list, std::initializer_list<std::string_view> wanted) {
  if (list == nullptr || !list->is_array()) return false;
  for (const auto& v : *list) {
    if (!v.is_string()) continue;
    for (auto w : wanted) {
      if (v.get<std::string>() == w) return true;
    }
  }
  return false;
}

// A rule that sends UPDATEs of legacy EtcdClusters to the webhook.
bool rule_on_legacy_clusters(const json& rule) {
  return has_string(op::find_at(rule, "/apiGroups"), {op::kLegacyGroup, "*"}) &&
         has_string(op::find_at(rule, "/resources"), {"etcdclusters", "*", "*/*"}) &&
         has_string(op::find_at(rule, "/operations"), {"UPDATE", "*"});
}

std::string name_of(const json& o) { return op::string_at(o, "/metadata/namespace") + "/" + op::string_at(o, "/metadata/name"); }

}  // namespace

bool selector_matches(const json& selector, const json& labels, bool partial) {
  if (!selector.is_object()) return true;  // no selector: everything
  auto known = [&](const std::string& key) { return !partial || labels.contains(key); };
  auto value = [&](const std::string& key) -> const json* {
    auto it = labels.find(key);
    return it != labels.end() && it->is_string() ? &*it : nullptr;
  };
  if (const json* ml = op::find_at(selector, "/matchLabels"); ml != nullptr && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it) {
      if (!known(it.key())) continue;
      const json* v = value(it.key());
      if (v == nullptr || *v != *it) return false;
    }
  }
  if (const json* me = op::find_at(selector, "/matchExpressions"); me != nullptr && me->is_array()) {
    for (const auto& e : *me) {
      std::string key = op::string_at(e, "/key"), operation = op::string_at(e, "/operator");
      if (!known(key)) continue;
      const json* v = value(key);
      const json* values = op::find_at(e, "/values");
      bool listed = v != nullptr && values != nullptr && values->is_array() &&
                    std::find(values->begin(), values->end(), *v) != values->end();
      if ((operation == "In" && !listed) || (operation == "NotIn" && listed) ||
          (operation == "Exists" && v == nullptr) || (operation == "DoesNotExist" && v != nullptr)) {
        return false;
      }
    }
  }
  return true;
}

bool webhook_covers(const json& config, const json& legacy) {
  const json* hooks = op::find_at(config, "/webhooks");
  if (hooks == nullptr || !hooks->is_array()) return false;
  const json ns_labels = {{std::string(op::kLabelNamespaceName), op::string_at(legacy, "/metadata/namespace")}};
  const json* object_labels = op::find_at(legacy, "/metadata/labels");
  const json labels = object_labels != nullptr && object_labels->is_object() ? *object_labels : json::object();
  for (const auto& h : *hooks) {
    const json* rules = op::find_at(h, "/rules");
    if (rules == nullptr || !rules->is_array() ||
        std::none_of(rules->begin(), rules->end(), [](const json& r) { return rule_on_legacy_clusters(r); })) {
      continue;
    }
    const json* nsel = op::find_at(h, "/namespaceSelector");
    const json* osel = op::find_at(h, "/objectSelector");
    if (selector_matches(nsel != nullptr ? *nsel : json(), ns_labels, true) &&
        selector_matches(osel != nullptr ? *osel : json(), labels, false)) {
      return true;
    }
  }
  return false;
}

WebhookDecision decide_webhook_removal(const std::vector<std::pair<std::string, json>>& configs,
                                       const std::vector<json>& legacy, const std::function<bool(const json&)>& of_run,
                                       const std::function<bool(const json&)>& adopted) {
  WebhookDecision d;
  for (const auto& [name, config] : configs) {
    bool ours = false;
    std::string blocking;
    for (const auto& l : legacy) {
      if (!webhook_covers(config, l)) continue;
      ours = ours || of_run(l);
      if (blocking.empty() && !adopted(l)) blocking = name_of(l);
    }
    if (!ours) continue;
    if (blocking.empty()) {
      d.remove.push_back(name);
    } else {
      d.keep.push_back(name);
      if (d.reason.empty()) d.reason = "kept: " + name + " also covers the legacy EtcdCluster " + blocking + ", which is not adopted";
    }
  }
  return d;
}

}  // namespace migrate
