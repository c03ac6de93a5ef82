// The Job of `--backup-mode job` (docs/rules.md#backup-job): the operator's snapshot
// agent run once in the cluster's namespace, exactly as the reference builds
// it, with this project's fixes: activeDeadlineSeconds from --backup-timeout (the
// reference fixes it at 1800) and a name kept within 63 characters
// (op::migration_snapshot_job). A pure value; creating and watching the Job
// is the caller's business.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace backup {

struct BackupJobS3 {
  std::string endpoint;
  std::string bucket;
  std::string key;     // may be empty (still set as S3_KEY)
  std::string region;  // may be empty (still set as S3_REGION)
  bool force_path_style = false;
  std::string credentials_secret;  // keys AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
};

struct BackupJobPvc {
  std::string claim;
  std::string subpath;  // may be empty (still set as PVC_SUBPATH)
};

struct BackupJobSpec {
  std::string ns;
  std::string cluster;
  std::string cluster_uid;     // the legacy EtcdCluster's metadata.uid (SNAPSHOT_UID)
  std::string client_service;  // <cs> (docs/rules.md#service-names-honoured); empty: the cluster's name, as the reference
  std::string agent_image;
  std::chrono::seconds timeout{1800};  // --backup-timeout
  // The legacy spec.security.tls Secrets; empty when not set.
  std::string server_secret;
  std::string server_trusted_ca_secret;
  std::string client_secret;
  // Exactly one destination; PVC wins if both are given (the reference's rule).
  std::optional<BackupJobS3> s3;
  std::optional<BackupJobPvc> pvc;
};

nlohmann::ordered_json backup_job(const BackupJobSpec& spec);

// What a GET of the Job says (polled until it settles): a condition
// Complete=True or Failed=True, else still running.
enum class JobPhase { Running, Complete, Failed };
struct JobVerdict {
  JobPhase phase = JobPhase::Running;
  std::string reason;   // the Failed condition's reason and message
};
JobVerdict job_verdict(const nlohmann::json& job);

// The early failure: why one of the Job's pods can never start, or empty.
// A container waiting in CreateContainerConfigError (a missing Secret or
// key), ErrImagePull/ImagePullBackOff/InvalidImageName, or the pod
// Unschedulable (PodScheduled=False) will not get better by waiting for
// --backup-timeout; except a pod Unschedulable only because its PVC is not
// bound yet (a claim created a moment ago): that one is waited for.
std::string pod_stuck_reason(const nlohmann::json& pod);

}  // namespace backup
