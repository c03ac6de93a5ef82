// kubectl-etcd restore (docs/restore.md): a new EtcdCluster whose
// spec.bootstrap.restore points at a snapshot the operator's seed init
// container reads (an exact S3 object, or an exact file on a PVC). The plan
// is a value, made from the request alone: the object to create, where the
// snapshot comes from, and the steps that get it there.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace admin {

struct RestoreRequest {
  std::string ns, name;  // the new EtcdCluster
  std::string version;   // etcd X.Y.Z of the new cluster
  int replicas = 3;
  std::string storage_size;  // spec.storage.size; empty: the operator's default
  std::string file;          // a local snapshot file (from `snapshot save`)
  std::string s3_endpoint, s3_bucket, s3_key, s3_secret, s3_region;
  bool s3_force_path_style = false;
  std::string pvc, pvc_path;  // an existing claim and the exact file in it
};

// The steps of a restore, run on the step engine (docs/step-engine.md):
// the checks read, Upload and Create write.
enum class RestoreStepId { VerifyFile, ReadCredentials, Upload, CheckObject, CheckPvc, ServerDryRun, Create };

// The stable names the printed plan, the progress lines and the documents use.
const char* restore_step_name(RestoreStepId id);
// The step of that name; none for an unknown one.
std::optional<RestoreStepId> parse_restore_step(std::string_view name);

struct RestoreStep {
  RestoreStepId id;
  std::string detail;  // what it does, in a line
};

struct RestorePlan {
  RestoreRequest request;
  std::string s3_key;  // the exact object (S3 source)
  std::string source;  // s3://bucket/key or pvc CLAIM:PATH
  nlohmann::ordered_json object;  // the EtcdCluster
  std::vector<RestoreStep> steps;
  std::vector<std::string> refusals;
  bool refused() const { return !refusals.empty(); }
};

// Usage errors (exit 128) for flags that do not make one source; refusals
// (exit 3) for what the operator's restore cannot do.
base::Result<RestorePlan> plan_restore(const RestoreRequest& r);

nlohmann::ordered_json restore_plan_document(const RestorePlan& p);
std::string restore_plan_text(const RestorePlan& p);

}  // namespace admin
