// The safety backup of `--backup-mode job` (docs/rules.md#backup-job): the
// operator's snapshot agent run once as a Job in the cluster's namespace.
// Unlike the reference: the destination is checked before anything changes
// (the credentials Secret with both keys, or the PVC); the Job's deadline
// is --backup-timeout; a Job still running (a concurrent invocation's, or an
// earlier run's) is waited for, never deleted; and a pod that can never
// start (CreateContainerConfigError, ImagePullBackOff, Unschedulable) fails
// the backup at once instead of after the whole timeout. A Job that
// completed counts only once its agent's result line (the artefact's URI,
// size and sha256) is read from its Pod's log.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "backup/backup_job.h"
#include "base/result.h"
#include "kube/client.h"
#include "migrate/request.h"
#include "operator/agent_result.h"

namespace migrate {

// --agent-image, else the image of the new controller Deployment's container
// "manager", else of its first container (it answers at 0 replicas too).
base::Result<std::string> agent_image(kube::Client& client, const AdoptRequest& request,
                                     const Coordinates& new_controller);

// The pre-flight check of the Job's destination in `ns`: the S3 credentials
// Secret exists with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the PVC
// exists. Errors name the object and the fix.
base::Status check_job_destination(kube::Client& client, const std::string& ns, const AdoptRequest& request);

struct JobBackupOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};  // --backup-timeout: the wait, and the Job's deadline
  std::chrono::milliseconds poll{std::chrono::seconds(2)};
  std::chrono::milliseconds delete_wait{std::chrono::minutes(2)};  // for a failed Job to go before its successor
  std::chrono::milliseconds result_wait{std::chrono::seconds(20)};  // for the agent's result line once the Job completed
  std::function<bool()> cancelled;                                  // true: stop waiting (ErrorKind::Interrupted)
  std::function<void(const std::string&)> progress;
};

struct JobBackupResult {
  std::string job;          // <ns>/<name>
  std::string how;          // "completed", "reused (it had completed)", "completed (a Job already running)"
  op::AgentResult artefact; // from the agent's result line in its Pod's log
};

base::Result<JobBackupResult> run_backup_job(kube::Client& client, const backup::BackupJobSpec& spec,
                                            const JobBackupOptions& options);

}  // namespace migrate
