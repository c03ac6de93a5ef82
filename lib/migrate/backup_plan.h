// Plans for the legacy EtcdBackups and EtcdBackupSchedules (docs/rules.md#legacy-backups,
// docs/rules.md#backup-schedules): pure values, like cluster plans.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "migrate/verdict.h"

namespace migrate {

enum class BackupAction {
  Create,  // an EtcdSnapshot is created, then the legacy EtcdBackup deleted
  Skip,    // the EtcdSnapshot exists already: only the legacy delete remains (N9)
  Keep,    // a completed or failed legacy backup, reported and left alone (N12)
  Wait,    // pending, for a cluster not adopted (yet): converted once it is
  Print,   // a schedule: manifests printed, nothing applied
  Error,   // B13/B14: nothing done
};
const char* action_name(BackupAction a);

// Whether the referenced cluster is adopted by this run or was by an earlier one.
enum class ClusterState { NotAdopted, AdoptedNow, AdoptedBefore };

struct BackupPlanOptions {
  bool convert_completed = false;         // --convert-completed-backups
  std::string schedule_image;  // --schedule-image, op::kDefaultScheduleImage
};

struct BackupPlan {
  std::string kind;  // EtcdBackup or EtcdBackupSchedule
  std::string ns;
  std::string name;
  std::string cluster;  // spec.clusterRef.name
  BackupAction action = BackupAction::Create;
  std::vector<Verdict> verdicts;
  std::vector<nlohmann::ordered_json> objects;  // manifests: the EtcdSnapshot, or RBAC + CronJob
  bool deletes_legacy = false;                  // Create and Skip
  std::string artefact;                          // a completed backup's status.snapshot.uri
};

// The EtcdBackup's legacy state (docs/rules.md#legacy-backups).
enum class LegacyBackupState { Pending, Completed, Failed };
LegacyBackupState legacy_backup_state(const nlohmann::json& backup);

// The legacy destination mapped onto the EtcdSnapshot's; an error message for B13 when both or neither is set.
nlohmann::ordered_json map_destination(const nlohmann::json& destination, std::string& error);

BackupPlan plan_backup(const nlohmann::json& backup, bool snapshot_exists, ClusterState cluster,
                       const BackupPlanOptions& options);
BackupPlan plan_schedule(const nlohmann::json& schedule, const BackupPlanOptions& options);

nlohmann::ordered_json to_json(const BackupPlan& plan);

}  // namespace migrate
