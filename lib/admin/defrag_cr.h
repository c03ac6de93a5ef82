// `defrag --via-cr`: an EtcdDefrag for the operator to run
// (docs/operator-contract.md#etcddefrag), followed as `snapshot save
// --via-cr` follows an EtcdSnapshot; its status.members become the rows of
// `defrag`, so both paths print the same table.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/cr_run.h"
#include "admin/defrag.h"
#include "admin/target.h"
#include "base/result.h"

namespace kube {
class Client;
}

namespace admin {

struct DefragCrRequest {
  std::string name;  // default <c>-defrag-<UTC yyyymmdd-hhmmss>
  DefragRule rule;
  // Only the thresholds given go into spec.rule: the operator's defaults
  // are the same as this tool's.
  bool free_space_given = false;
  bool min_reclaim_given = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
};

// The EtcdDefrag object to create (pure); Usage (128) for what its schema
// would refuse (quotaUsageAbove is a whole percent there).
base::Result<nlohmann::json> defrag_cr(const Target& t, const DefragCrRequest& r,
                                      std::chrono::system_clock::time_point now);

// status.members as defrag rows (pure).
std::vector<DefragRow> defrag_cr_rows(const nlohmann::json& cr);

// Creates it and waits for Complete (the rows) or Failed (1, with the last
// condition's reason and message).
base::Result<std::vector<DefragRow>> defrag_via_cr(kube::Client& kube, const Target& t, const DefragCrRequest& r,
                                                   const PhaseProgress& progress = {});

}  // namespace admin
