// The ownership and label changes of adoption (docs/adoption-design.md steps
// 6 and 9, docs/rules.md#owner-references), computed from the live object as pure functions:
// the dry-run sends them with dryRun=All, the apply sends them for real.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace migrate {

// A JSON merge patch that gives a member's pod (role_label = true) or PVC the
// member-level labels and makes EtcdMember <m> (member_uid) its controller,
// keeping every non-controller owner reference; null when nothing changes.
nlohmann::json reown_patch(const nlohmann::json& object, const std::string& cluster, const std::string& member,
                           const std::string& member_uid, bool role_label);

// The same change as a strategic merge patch, for the apply: pods and PVCs
// are core types whose ownerReferences merge by uid, so every controller
// reference but EtcdMember <m>'s is deleted by its uid and <m>'s is merged in.
// A concurrent writer of other owner references (the garbage collector
// orphaning the object) then neither conflicts with it nor is undone by it.
// Carries the object's uid (a write to an object recreated under the same
// name fails). Null when nothing changes.
nlohmann::json reown_strategic_patch(const nlohmann::json& object, const std::string& cluster,
                                     const std::string& member, const std::string& member_uid, bool role_label);

// The owner references of the legacy headless Service <hl> after adoption:
// one non-controller entry per EtcdMember (name, uid) in name order, plus the
// entries that are neither the legacy EtcdCluster's nor an EtcdMember's (docs/rules.md#smaller-gaps-closed).
nlohmann::json headless_owner_references(const nlohmann::json& service,
                                         const std::vector<std::pair<std::string, std::string>>& members);

// A placeholder UID for dry-runs, where the owner does not exist yet (docs/rules.md#server-side-dry-run).
inline constexpr const char* kPlaceholderUid = "00000000-0000-0000-0000-000000000000";

}  // namespace migrate
