// `compact`, `alarm list`, `alarm disarm` and `move-leader` (docs/rules.md#call-semantics).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/session.h"
#include "base/outcome.h"
#include "base/result.h"
#include "output/render.h"

namespace admin {

// --- compact
struct CompactRequest {
  std::optional<std::int64_t> revision;  // --revision N
  std::optional<std::int64_t> keep;      // --keep N: current - N
  bool physical = false;
};
// The revision to compact to, given the current one (pure).
base::Result<std::int64_t> compact_target(const CompactRequest& r, std::int64_t current);
base::Result<std::int64_t> compact(Session& s, const CompactRequest& r);

// --- alarms
struct AlarmRow {
  std::string member;  // name when known
  std::uint64_t id = 0;
  std::string alarm;   // NOSPACE, CORRUPT
  std::string outcome; // disarm only: disarmed, skipped, failed
  std::string error;
};
base::Result<std::vector<AlarmRow>> alarm_list(Session& s);
nlohmann::ordered_json alarm_document(const std::vector<AlarmRow>& rows, bool disarm);
output::View alarm_view(bool disarm);

struct DisarmRequest {
  std::optional<std::uint64_t> member;  // --member (ID or name, resolved by the caller)
  std::string alarm;                    // --alarm NOSPACE|CORRUPT, empty: all
  bool force = false;                   // CORRUPT needs it
};
struct DisarmReport {
  std::vector<AlarmRow> rows;
  std::vector<base::Outcome> outcomes;
  std::vector<std::string> warnings;  // NOSPACE disarmed while a db is still at its quota
};
base::Result<DisarmReport> alarm_disarm(Session& s, const DisarmRequest& r);

// Resolves --member: an EtcdMember/etcd name or a member ID (docs/rules.md#member-ids).
// must_be_listed: an ID etcd's MemberList does not hold is NotFound (an alarm
// may outlive its member, a leader transferee may not).
base::Result<std::uint64_t> resolve_member(Session& s, const std::string& text, bool must_be_listed = false);

// --- move-leader
struct MoveLeaderReport {
  std::uint64_t from = 0;
  std::uint64_t to = 0;
  std::string from_name, to_name;
  bool moved = false;  // false: the target already leads
};
// target: empty = the started, reachable voter with the highest applied index.
base::Result<MoveLeaderReport> move_leader(Session& s, const std::string& target);
nlohmann::ordered_json move_leader_document(const MoveLeaderReport& r);
output::View move_leader_view();

// Per-member Status of the selected members under one deadline, with their names.
struct MemberStatus {
  const MemberTarget* member = nullptr;
  std::optional<etcd::StatusInfo> status;  // empty: unreachable
  std::string error;
};
std::vector<MemberStatus> status_of_members(Session& s, bool selected_only = false);

}  // namespace admin
