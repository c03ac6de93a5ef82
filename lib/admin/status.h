// `status` (a cluster summary, then one row per member from its own Status
// RPC, all members at once under one budget) and `member list` (etcd's
// MemberList joined with the EtcdMembers and Pods).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/consistency.h"
#include "admin/session.h"
#include "base/result.h"
#include "output/render.h"

namespace admin {

struct StatusReport {
  nlohmann::ordered_json cluster;   // null with --endpoints
  nlohmann::ordered_json members = nlohmann::ordered_json::array();
  int answered = 0;
  int unreachable = 0;
};

StatusReport cluster_status(Session& s);
// 0 all answered; 2 none; 5 some (docs/exit-codes.md#special-cases).
int status_exit_code(const StatusReport& r);
nlohmann::ordered_json status_document(const StatusReport& r);
output::View status_view();
// The summary lines above the member table (table and wide).
std::string status_text(const nlohmann::ordered_json& doc, output::Format format);

// The quota a member's db is measured against: the Status answer (3.6+),
// else spec.options.quotaBackendBytes, else etcd's 2 GiB default.
std::int64_t effective_quota(std::int64_t status_quota, const nlohmann::json& cluster);

struct MemberListReport {
  nlohmann::ordered_json members = nlohmann::ordered_json::array();
  std::vector<Finding> findings;
  int unreachable = 0;  // members of the target whose Status did not answer
};
// 0, or 5 when some members did not answer (docs/exit-codes.md#special-cases).
int member_list_exit_code(const MemberListReport& r);

base::Result<MemberListReport> member_list(Session& s);
nlohmann::ordered_json member_list_document(const MemberListReport& r);
output::View member_list_view();

}  // namespace admin
