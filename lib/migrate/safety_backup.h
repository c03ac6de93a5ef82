// The safety snapshot of one cluster's adoption (docs/adoption-design.md,
// steps `prerequisites` and `backup`): its destinations proven before auth
// is touched, then the snapshot streamed to a file and/or S3, or written by
// a Job of the snapshot agent (`--backup-mode job`). The adoption pipeline
// owns one per cluster; nothing here prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backup/stream_backup.h"
#include "base/result.h"
#include "etcd/client.h"
#include "kube/client.h"
#include "migrate/adoption_plan.h"
#include "migrate/apply.h"
#include "migrate/inspect.h"
#include "migrate/inventory.h"
#include "migrate/request.h"
#include "operator/legacy_cluster.h"

namespace migrate {

// Whether --apply's prerequisites step proves this cluster's backup
// destinations: not with --skip-backup or without one, nor once its pods have
// the new owner (a resumed run past the backup).
bool backup_destination_checked(const ClusterPlan& plan, const Inventory& inventory, const AdoptRequest& request,
                                const ValidRequest& valid);
bool pods_reowned(const ClusterPlan& plan, const Inventory& inventory);

// The destinations answer (read-only): the directory is writable; the S3
// credentials are there and the bucket takes them, or the Job's Secret or
// PVC exists and its image is known. --apply checks it before auth is
// touched, and the plan checks it too, so that a dry-run is blocked where
// --apply would be (docs/rules.md#dry-run-checks-what-the-run-checks).
struct BackupDestination {
  std::optional<backup::S3Destination> s3;  // stream mode's S3 destination
  std::string agent_image;                  // job mode's image
};
base::Result<BackupDestination> check_backup_destination(kube::Client& client, const ClusterPlan& plan,
                                                         const AdoptRequest& request, const ValidRequest& valid);

class SafetyBackup {
 public:
  SafetyBackup(kube::Client& client, const ClusterPlan& plan, const op::LegacyCluster& legacy,
               const AdoptRequest& request, const ValidRequest& valid, const ApplyHooks& hooks);

  // check_backup_destination(), kept for the backup step.
  base::Status check();

  // Takes the snapshot, streamed from `targets` or written by a Job (which
  // needs no etcd client); answers the line the summary shows for it. A stop
  // asked meanwhile answers an ErrorKind::Interrupted error.
  base::Result<std::string> stream(etcd::Client& c, const std::vector<EtcdTarget>& targets);
  base::Result<std::string> by_job();

 private:
  std::string destinations() const;
  void progress(const std::string& what) const;
  bool stopped() const;

  kube::Client& k_;
  const ClusterPlan& p_;
  const op::LegacyCluster& legacy_;
  const AdoptRequest& request_;
  const ValidRequest& valid_;
  const ApplyHooks& hooks_;
  std::optional<backup::S3Destination> s3_;  // stream mode's S3 destination, checked by check()
  std::string agent_image_;                  // job mode's image, resolved by check()
};

}  // namespace migrate
