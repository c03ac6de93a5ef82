// The whole read-only half of `etcd-migrate adopt` (docs/adoption-design.md,
// "The read-only half"): gate, discovery, concurrent live
// inspection, translation, identity checks and server-side dry-runs, ending
// in one value that the dry-run prints and `--apply` executes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "etcd/config.h"
#include "kube/client.h"
#include "migrate/backup_plan.h"
#include "migrate/cluster_plan.h"
#include "migrate/gate.h"
#include "migrate/inventory.h"
#include "migrate/request.h"

namespace migrate {

struct InspectionLine {
  std::string ns, name;
  bool ok = false;
  std::string cluster_id;
  size_t members = 0;
  bool live_auth = false;
};

struct AdoptionPlan {
  bool apply = false;
  std::string scope;  // "" = every namespace
  GateReport gate;
  std::string legacy_controller, new_controller;
  size_t found_clusters = 0, found_backups = 0, found_schedules = 0;
  std::vector<InspectionLine> inspected;
  std::vector<ClusterPlan> clusters;
  std::vector<BackupPlan> backups;
  std::vector<BackupPlan> schedules;
  std::vector<Verdict> verdicts;  // run-wide: W19 (gate, dry-run), N11 (webhooks)
  std::vector<std::string> legacy_webhooks;
  std::vector<std::string> warnings;  // things the run could not read, e.g. webhooks forbidden
  Inventory inventory;  // what the plan was computed from (apply re-reads live state anyway)
  // Per cluster, the TLS material its inspection read (ClusterFacts::tls);
  // never printed.
  std::vector<std::optional<etcd::TlsConfig>> legacy_tls;

  bool nothing_to_migrate() const { return found_clusters + found_backups + found_schedules == 0; }
  size_t blocked() const;
};

// Progress for stderr ("inspecting ns/c"), never results.
using ProgressFn = std::function<void(const std::string&)>;

// Fatal errors (cannot connect, 403 on discovery, v1alpha2 CRDs missing,
// the gate refusing an --apply) come back as errors; everything that
// concerns one cluster is a verdict in its plan.
base::Result<AdoptionPlan> plan_adoption(kube::Client& client, const AdoptRequest& request, const ValidRequest& valid,
                                        const ProgressFn& progress);

// 3 as soon as one plan is blocked, else 0 (docs/exit-codes.md).
int dry_run_exit_code(const AdoptionPlan& plan);

nlohmann::ordered_json to_json(const AdoptionPlan& plan);

}  // namespace migrate
