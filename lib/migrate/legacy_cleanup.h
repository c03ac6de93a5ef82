// What an adoption run does after its pipelines (docs/adoption-design.md):
// the legacy webhook configurations that may go before the legacy
// EtcdClusters are orphan-deleted, the legacy EtcdBackups settled, and the
// note on legacy EtcdClusters left Terminating. Nothing here prints.
#pragma once

#include <vector>

#include "kube/client.h"
#include "migrate/adoption_plan.h"
#include "migrate/apply.h"

namespace migrate {

// Settles one legacy EtcdBackup or schedule of the plan: only for a cluster
// adopted in this run (or an earlier one).
BackupResult apply_backup(kube::Client& k, const BackupPlan& b, const std::vector<ClusterResult>& clusters);

// The legacy webhook configurations that cover the run's clusters go when
// every legacy EtcdCluster they cover is adopted: by this run (its pipeline
// reached the last step) or an earlier one (Terminating, our marker on its
// successor). Called before the legacy EtcdClusters are orphan-deleted, so
// the garbage collector's first try to drop the orphan finalizer succeeds.
void remove_webhooks(kube::Client& k, const AdoptionPlan& plan, const std::vector<ClusterResult>& results,
                     ApplyReport& report);

// The legacy EtcdClusters left Terminating behind legacy webhooks, and how
// the user ends the wait (docs/adoption-runbook.md, "Legacy webhooks").
void terminating_note(const AdoptionPlan& plan, ApplyReport& report);

}  // namespace migrate
