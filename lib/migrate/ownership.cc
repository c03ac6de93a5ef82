#include "migrate/ownership.h"

#include "base/json_at.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"

namespace migrate {

using json = nlohmann::json;

json reown_patch(const json& object, const std::string& cluster, const std::string& member,
                 const std::string& member_uid, bool role_label) {
  json labels_patch = json::object();
  const json* labels = base::find_at(object, "/metadata/labels");
  json wanted = op::member_labels(cluster, member);
  if (role_label) wanted[std::string(op::kLabelRole)] = std::string(op::kRoleVoter);
  for (auto it = wanted.begin(); it != wanted.end(); ++it) {
    bool same = labels != nullptr && labels->contains(it.key()) && (*labels)[it.key()] == it.value();
    if (!same) labels_patch[it.key()] = it.value();
  }
  json refs = json::array();
  bool changed = true;
  const json* old = base::find_at(object, "/metadata/ownerReferences");
  json ours = op::owner_reference(op::kKindEtcdMember, member, member_uid, true);
  if (old != nullptr && old->is_array()) {
    for (const auto& r : *old) {
      if (base::bool_at(r, "/controller")) continue;
      if (base::string_at(r, "/kind") == op::kKindEtcdMember && base::string_at(r, "/uid") == member_uid) continue;
      refs.push_back(r);
    }
  }
  refs.push_back(ours);
  if (old != nullptr && *old == refs) changed = false;
  json patch = json::object();
  if (!labels_patch.empty()) patch["metadata"]["labels"] = labels_patch;
  if (changed) patch["metadata"]["ownerReferences"] = refs;
  return patch.empty() ? json() : patch;
}

json reown_strategic_patch(const json& object, const std::string& cluster, const std::string& member,
                           const std::string& member_uid, bool role_label) {
  json merge = reown_patch(object, cluster, member, member_uid, role_label);
  if (merge.is_null()) return json();
  json patch = json::object();
  patch["metadata"]["uid"] = base::string_at(object, "/metadata/uid");
  if (merge["metadata"].contains("labels")) patch["metadata"]["labels"] = merge["metadata"]["labels"];
  if (merge["metadata"].contains("ownerReferences")) {
    json refs = json::array();
    const json* old = base::find_at(object, "/metadata/ownerReferences");
    if (old != nullptr && old->is_array()) {
      for (const auto& r : *old) {
        bool ours = base::string_at(r, "/kind") == op::kKindEtcdMember && base::string_at(r, "/uid") == member_uid;
        if (base::bool_at(r, "/controller") && !ours) refs.push_back({{"$patch", "delete"}, {"uid", base::string_at(r, "/uid")}});
      }
    }
    refs.push_back(json(op::owner_reference(op::kKindEtcdMember, member, member_uid, true)));
    patch["metadata"]["ownerReferences"] = refs;
  }
  return patch;
}

json headless_owner_references(const json& service, const std::vector<std::pair<std::string, std::string>>& members) {
  json refs = json::array();
  for (const auto& [name, uid] : members) {
    json r = op::owner_reference(op::kKindEtcdMember, name, uid, false);
    refs.push_back(r);
  }
  const json* old = base::find_at(service, "/metadata/ownerReferences");
  if (old != nullptr && old->is_array()) {
    for (const auto& r : *old) {
      std::string api = base::string_at(r, "/apiVersion");
      bool legacy_cluster = base::string_at(r, "/kind") == op::kKindEtcdCluster && api.rfind(std::string(op::kLegacyGroup) + "/", 0) == 0;
      bool member = base::string_at(r, "/kind") == op::kKindEtcdMember && api == op::kApiVersion;
      if (!legacy_cluster && !member) refs.push_back(r);
    }
  }
  return refs;
}

}  // namespace migrate
