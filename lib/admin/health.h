// `health`: per member, under one budget (docs/rules.md#health-budget):
// Status answers; a linearizable Range of "health" (serializable on a
// learner; permission denied counts as healthy); a leader known and agreed;
// no alarm; then, for a cluster, the consistency findings of `check`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/consistency.h"
#include "admin/session.h"
#include "output/render.h"

namespace admin {

struct HealthRow {
  std::string name;
  std::string endpoint;
  std::uint64_t id = 0;
  std::string role;       // leader, follower, learner, "-" when unknown
  bool reachable = false;
  bool healthy = false;
  double took = 0;        // seconds
  std::string error;
  long long restarts = -1;  // the etcd container's restartCount, -1 unknown (admin/pod_restarts.h)
};

struct HealthReport {
  std::vector<HealthRow> members;
  std::vector<Finding> findings;
  std::string consistency_error;  // the check could not run (empty: it ran or was not asked)
};

HealthReport check_health(Session& s, bool with_consistency = true);

// 0 healthy; 2 when no member answered; else 1 (docs/exit-codes.md: an unhealthy or
// unreachable member, or any finding).
int health_exit_code(const HealthReport& r);

nlohmann::ordered_json health_document(const HealthReport& r);
output::View health_view();

}  // namespace admin
