// Runs a restore plan (admin/restore_plan.h): first every read-only check
// (admin/restore_check.h, the same ones `--dry-run` makes), then the plan's
// typed steps on the step engine (docs/step-engine.md#restore): a check
// answers what it found, the upload and the create read again and write
// what is still to do. Each step is done (already so), did (made so) or
// cannot (an error naming the object and the fix). A re-run after a stop or
// a lost answer finds the upload and the EtcdCluster it made and goes on
// (docs/restore.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/restore_check.h"
#include "admin/restore_plan.h"
#include "base/result.h"

namespace kube {
class Client;
}

namespace admin {

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
