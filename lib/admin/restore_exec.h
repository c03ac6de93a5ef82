// Runs a restore plan (admin/restore_plan.h) step by step; each step reads
// live state first and is done (already so), did (made so) or cannot (an
// error naming the object and the fix). A re-run after a stop finds the
// upload and the EtcdCluster it made and goes on (docs/restore.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/restore_plan.h"
#include "base/result.h"

namespace kube {
class Client;
}

namespace admin {

struct RestoreStepResult {
  std::string step;
  std::string outcome;  // done | did
  std::string detail;
};

struct RestoreReport {
  std::vector<RestoreStepResult> steps;
  nlohmann::json object;  // the EtcdCluster as the server answered
};

struct RestoreHooks {
  std::function<void(const RestoreStepResult&)> step_done;
  std::function<void(std::uint64_t done, std::uint64_t total)> upload_progress;
};

base::Result<RestoreReport> execute_restore(kube::Client& kube, const RestorePlan& plan, const RestoreHooks& hooks = {});

nlohmann::ordered_json restore_report_document(const RestorePlan& plan, const RestoreReport& report);

}  // namespace admin
