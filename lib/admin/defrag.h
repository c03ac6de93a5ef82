// `defrag` (docs/rules.md#etcddefrag): one member unconditionally, or the safe
// cluster-wide procedure: the EtcdDefrag rule per member, followers first and
// the leader last, one at a time, each only while the cluster is healthy,
// learners skipped (they reject Defragment). Rows carry the EtcdDefrag
// members[] names.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/session.h"
#include "base/outcome.h"
#include "base/result.h"
#include "output/render.h"

namespace admin {

struct DefragRule {
  bool all = false;
  std::int64_t free_space_above = std::int64_t{200} * 1024 * 1024;  // 200Mi
  std::optional<double> quota_usage_above;                         // percent, 1..100
  std::int64_t min_reclaim = std::int64_t{32} * 1024 * 1024;        // 32Mi
};

// Usage errors for rules EtcdDefrag's schema would refuse.
base::Status validate(const DefragRule& r, bool min_reclaim_given);

struct DefragCandidate {
  std::string name;
  std::string endpoint;
  std::uint64_t id = 0;
  bool leader = false;
  bool learner = false;
  std::int64_t db_size = 0;
  std::int64_t db_size_in_use = 0;
  std::int64_t quota = 0;
};

// The reasons of a row, as EtcdDefrag's status writes them
// (docs/rules.md#etcddefrag); named so a comparison cannot misspell one.
namespace defrag_reason {
inline constexpr const char* kBelowThreshold = "BelowThreshold";
inline constexpr const char* kLearner = "Learner";
inline constexpr const char* kClusterNotHealthy = "ClusterNotHealthy";
inline constexpr const char* kRPCError = "RPCError";
inline constexpr const char* kUnreachable = "Unreachable";
}  // namespace defrag_reason

// Whether the rule asks for a defragment; the reason when not.
struct Decision {
  bool defragment = false;
  std::string reason;  // BelowThreshold, Learner
};
Decision decide(const DefragRule& rule, const DefragCandidate& m);

// Followers (by name), then the leader; learners stay in the list, last.
std::vector<DefragCandidate> defrag_order(std::vector<DefragCandidate> members);

struct DefragRow {
  std::string name;
  std::uint64_t id = 0;
  std::string role;     // leader, follower, learner
  std::string outcome;  // Defragmented, Skipped, Failed
  std::string reason;   // BelowThreshold, Learner, ClusterNotHealthy, RPCError, Unreachable
  std::optional<std::int64_t> before, after;
  std::string error;
};

struct DefragRequest {
  DefragRule rule;
  std::string member;  // -p/--member: that one member, unconditionally
  std::chrono::milliseconds member_timeout{10 * 60 * 1000};
  bool dry_run = false;
};

// Reports each finished member as it goes (progress on stderr).
using DefragProgress = std::function<void(const DefragRow&)>;
base::Result<std::vector<DefragRow>> defrag(Session& s, const DefragRequest& r, const DefragProgress& progress = {});
std::vector<base::Outcome> defrag_outcomes(const std::vector<DefragRow>& rows);

nlohmann::ordered_json defrag_document(const std::vector<DefragRow>& rows);
output::View defrag_view();

}  // namespace admin
