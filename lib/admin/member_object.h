// What the member commands read off an EtcdMember object (or, for name_of,
// any object), in one place for the planners and the executor.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace admin {

// metadata.name, or "".
std::string name_of(const nlohmann::json& object);
// Has a deletionTimestamp: Terminating.
bool deleting(const nlohmann::json& object);
// spec.dormant is true (the cluster is paused).
bool dormant(const nlohmann::json& member);
// spec.initialCluster is present and empty: the operator has yet to wire it.
bool awaiting_initial_cluster(const nlohmann::json& member);
// status.memberID parsed; 0 when absent or not a member ID.
std::uint64_t stored_id(const nlohmann::json& member);
// Carries the operator's member-cleanup finalizer.
bool has_member_finalizer(const nlohmann::json& member);
// spec.storage.medium is Memory: the member's data lives only as long as its Pod.
bool in_memory(const nlohmann::json& member);

}  // namespace admin
