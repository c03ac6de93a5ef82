// Server-side dry-run of every write a plan would make (docs/rules.md#server-side-dry-run):
// the real schema, CEL rules and admission judge the
// objects at plan time; each rejection becomes blocker B16 quoting the server.
#pragma once

#include "kube/client.h"
#include "migrate/backup_plan.h"
#include "migrate/cluster_plan.h"
#include "migrate/inventory.h"

namespace migrate {

// Sends the plan's creates and patches with dryRun=All in the form they
// will take given the live state (UIDs not known yet are placeholders;
// status subresources are not dry-run; "already exists" on a re-run is done).
// Flips the plan to Error when anything is rejected. Returns the number of
// requests sent.
int dry_run_cluster(kube::Client& client, const Inventory& inventory, ClusterPlan& plan);
int dry_run_backup(kube::Client& client, BackupPlan& plan);

// Blocks the plan with these blockers (its notes dropped, as for any
// blocked plan); nothing when the list is empty.
void block_cluster(ClusterPlan& plan, std::vector<Verdict> blockers);

}  // namespace migrate
