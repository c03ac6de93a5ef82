// The read-only half of a restore (docs/restore.md#steps): every check the
// run makes before it writes, made by one function that `--dry-run` and the
// run both call, so that a dry-run fails where the run would, with the same
// error and exit code (docs/rules.md#dry-run-checks-what-the-run-checks).
// It reads the file, the Secret, the S3 object and the claim, and sends the
// EtcdCluster as a server-side dry-run; it writes nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/restore_plan.h"
#include "admin/snapshot.h"
#include "backup/s3_client.h"
#include "base/result.h"

namespace kube {
class Client;
}

namespace admin {

struct RestoreStepResult {
  RestoreStepId step = RestoreStepId::Create;
  std::string outcome;  // done (checked, or already so) | did | pending (the run will do it)
  std::string detail;
};

struct RestoreCheck {
  std::vector<RestoreStepResult> steps;  // one per plan step, in the plan's order
  // What the checks found that the operator's restore cannot do (the file's
  // snapshot has auth enabled): refused, as the plan's own refusals.
  std::vector<std::string> refusals;
  std::optional<SnapshotFileReport> file;
  std::optional<backup::S3Credentials> credentials;
  bool uploaded = false;        // the key already holds this file (an earlier run)
  bool cluster_exists = false;  // an earlier run created the EtcdCluster
  nlohmann::json cluster;
  bool refused() const { return !refusals.empty(); }
};

// An error: a check failed (the file is not a snapshot 1, the Secret, object
// or claim is missing 6, another object is under the key or the name is
// taken 3, ...). A plan that is already refused is not checked.
base::Result<RestoreCheck> check_restore(kube::Client& kube, const RestorePlan& plan);

// The error both a refused run and a refused dry-run end with: the first
// refusal of the plan, else of the checks.
base::Error restore_refusal(const RestorePlan& plan, const RestoreCheck& check);

// The dry-run's output: the plan, what each check found, and the refusals of both.
nlohmann::ordered_json restore_check_document(const RestorePlan& plan, const RestoreCheck& check);
std::string restore_check_text(const RestorePlan& plan, const RestoreCheck& check);

}  // namespace admin
