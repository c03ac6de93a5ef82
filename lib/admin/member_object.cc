#include "admin/member_object.h"

#include "base/json_at.h"
#include "etcd/member_id.h"
#include "operator/names.h"

namespace admin {

using json = nlohmann::json;

std::string name_of(const json& object) { return base::string_at(object, "/metadata/name"); }

bool deleting(const json& object) { return object.contains("/metadata/deletionTimestamp"_json_pointer); }

bool dormant(const json& member) {
  return base::bool_at(member, "/spec/dormant");
}

bool awaiting_initial_cluster(const json& member) {
  return member.contains("/spec/initialCluster"_json_pointer) && base::string_at(member, "/spec/initialCluster").empty();
}

std::uint64_t stored_id(const json& member) {
  auto s = base::string_at(member, "/status/memberID");
  if (s.empty()) return 0;
  auto id = etcd::parse_member_id(s);
  return id ? *id : 0;
}

bool has_member_finalizer(const json& member) {
  for (const auto& f : base::array_at(member, "/metadata/finalizers")) {
    if (f == std::string(op::kMemberFinalizer)) return true;
  }
  return false;
}

bool in_memory(const nlohmann::json& member) { return base::string_at(member, "/spec/storage/medium") == "Memory"; }

}  // namespace admin
