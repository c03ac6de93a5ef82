#include "migrate/backup_plan.h"

#include "base/json_at.h"
#include "base/text.h"
#include "kube/conditions.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"
#include "output/yaml_emit.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

const char* action_name(BackupAction a) {
  switch (a) {
    case BackupAction::Create: return "Create";
    case BackupAction::Skip: return "Skip";
    case BackupAction::Keep: return "Keep";
    case BackupAction::Wait: return "Wait";
    case BackupAction::Print: return "Print";
    case BackupAction::Error: return "Error";
  }
  return "Error";
}

LegacyBackupState legacy_backup_state(const json& backup) {
  const json* snapshot = base::find_at(backup, "/status/snapshot");
  std::string phase = base::string_at(backup, "/status/phase");
  if ((snapshot != nullptr && snapshot->is_object() && !snapshot->empty()) || phase == "Succeeded" ||
      phase == "Completed" || kube::condition_true(backup, "Complete") || kube::condition_true(backup, "Completed") ||
      kube::condition_true(backup, "Succeeded")) {
    return LegacyBackupState::Completed;
  }
  if (phase == "Failed" || kube::condition_true(backup, "Failed")) return LegacyBackupState::Failed;
  return LegacyBackupState::Pending;
}

ojson map_destination(const json& destination, std::string& error) {
  const json* s3 = destination.is_object() ? base::find_at(destination, "/s3") : nullptr;
  const json* pvc = destination.is_object() ? base::find_at(destination, "/pvc") : nullptr;
  if (s3 != nullptr && pvc != nullptr) {
    error = "spec.destination: both s3 and pvc are set; exactly one is allowed";
    return nullptr;
  }
  if (s3 == nullptr && pvc == nullptr) {
    error = "spec.destination: neither s3 nor pvc is set";
    return nullptr;
  }
  ojson out = ojson::object();
  if (s3 != nullptr) {
    ojson m = ojson::object();
    m["endpoint"] = base::string_at(*s3, "/endpoint");
    m["bucket"] = base::string_at(*s3, "/bucket");
    if (auto key = base::string_at(*s3, "/key"); !key.empty()) m["key"] = key;
    if (auto region = base::string_at(*s3, "/region"); !region.empty()) m["region"] = region;
    if (base::bool_at(*s3, "/forcePathStyle")) m["forcePathStyle"] = true;
    m["credentialsSecretRef"] = {{"name", base::string_at(*s3, "/credentialsSecretRef/name")}};
    out["s3"] = m;
  } else {
    ojson m = {{"claimName", base::string_at(*pvc, "/claimName")}};
    if (auto sub = base::string_at(*pvc, "/subPath"); !sub.empty()) m["subPath"] = sub;
    out["pvc"] = m;
  }
  return out;
}

BackupPlan plan_backup(const json& backup, bool snapshot_exists, ClusterState cluster,
                       const BackupPlanOptions& options) {
  BackupPlan plan;
  plan.kind = std::string(op::kKindEtcdBackup);
  plan.ns = base::string_at(backup, "/metadata/namespace");
  plan.name = base::string_at(backup, "/metadata/name");
  plan.cluster = base::string_at(backup, "/spec/clusterRef/name");
  plan.artefact = base::string_at(backup, "/status/snapshot/uri");

  std::string error;
  const json* dest = base::find_at(backup, "/spec/destination");
  ojson destination = map_destination(dest != nullptr ? *dest : json(), error);
  if (!error.empty()) {
    plan.action = BackupAction::Error;
    plan.verdicts.push_back({"B13", error});
    return plan;
  }
  LegacyBackupState state = legacy_backup_state(backup);
  if (state != LegacyBackupState::Pending && !options.convert_completed) {
    plan.action = BackupAction::Keep;
    plan.verdicts.push_back(
        {"N12", std::string(state == LegacyBackupState::Completed ? "completed" : "failed") +
                    " legacy backup left alone" +
                    (plan.artefact.empty() ? std::string() : " (artefact " + plan.artefact + ")") +
                    "; --convert-completed-backups converts it into a new EtcdSnapshot run"});
    return plan;
  }
  if (cluster == ClusterState::NotAdopted) {
    plan.action = BackupAction::Wait;
    plan.verdicts.push_back({"N8", "its cluster " + base::quoted(plan.cluster) +
                                       " is not adopted (yet): the backup is converted by the run that adopts it"});
    return plan;
  }
  if (snapshot_exists) {
    plan.action = BackupAction::Skip;
    plan.deletes_legacy = true;
    plan.verdicts.push_back({"N9", "the EtcdSnapshot " + base::quoted(plan.name) +
                                       " exists already: only deleting the legacy EtcdBackup remains"});
    return plan;
  }
  plan.action = BackupAction::Create;
  plan.deletes_legacy = true;
  plan.verdicts.push_back({"N8", "the EtcdSnapshot runs once the new operator is started and the cluster " +
                                     base::quoted(plan.cluster) + " exists under the new API"});
  plan.objects.push_back({{"apiVersion", std::string(op::kApiVersion)},
                          {"kind", std::string(op::kKindEtcdSnapshot)},
                          {"metadata", {{"name", plan.name}, {"namespace", plan.ns}}},
                          {"spec", {{"clusterRef", {{"name", plan.cluster}}}, {"destination", destination}}}});
  return plan;
}

BackupPlan plan_schedule(const json& schedule, const BackupPlanOptions& options) {
  BackupPlan plan;
  plan.kind = std::string(op::kKindEtcdBackupSchedule);
  plan.ns = base::string_at(schedule, "/metadata/namespace");
  plan.name = base::string_at(schedule, "/metadata/name");
  plan.cluster = base::string_at(schedule, "/spec/clusterRef/name");
  std::string error;
  const json* dest = base::find_at(schedule, "/spec/destination");
  ojson destination = map_destination(dest != nullptr ? *dest : json(), error);
  if (!error.empty()) {
    plan.action = BackupAction::Error;
    plan.verdicts.push_back({"B13", error});
    return plan;
  }
  const std::string s = plan.name, ns = plan.ns, sa = op::snapshotter_name(s);
  ojson cluster_ref = ojson::object();
  if (const json* ref = base::find_at(schedule, "/spec/clusterRef"); ref != nullptr) cluster_ref = *ref;
  ojson tmpl = {{"apiVersion", std::string(op::kApiVersion)},
                {"kind", std::string(op::kKindEtcdSnapshot)},
                {"metadata", {{"generateName", s + "-"}, {"namespace", ns}}},
                {"spec", {{"clusterRef", cluster_ref}, {"destination", destination}}}};
  std::string script = "kubectl create -f - <<'EOF'\n" + output::to_yaml(tmpl) + "EOF\n";

  plan.action = BackupAction::Print;
  plan.objects.push_back({{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", {{"name", sa}, {"namespace", ns}}}});
  plan.objects.push_back({{"apiVersion", "rbac.authorization.k8s.io/v1"},
                          {"kind", "Role"},
                          {"metadata", {{"name", sa}, {"namespace", ns}}},
                          {"rules", ojson::array({{{"apiGroups", ojson::array({std::string(op::kGroup)})},
                                                   {"resources", ojson::array({"etcdsnapshots"})},
                                                   {"verbs", ojson::array({"create"})}}})}});
  plan.objects.push_back(
      {{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "RoleBinding"},
       {"metadata", {{"name", sa}, {"namespace", ns}}},
       {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", sa}}},
       {"subjects", ojson::array({{{"kind", "ServiceAccount"}, {"name", sa}, {"namespace", ns}}})}});
  ojson cron_spec = {{"schedule", base::string_at(schedule, "/spec/schedule")}, {"concurrencyPolicy", "Forbid"}};
  for (const char* limit : {"successfulJobsHistoryLimit", "failedJobsHistoryLimit"}) {
    if (const json* v = base::find_at(schedule, (std::string("/spec/") + limit).c_str()); v != nullptr) {
      cron_spec[limit] = *v;
    }
  }
  cron_spec["jobTemplate"] = {
      {"spec",
       {{"template",
         {{"spec",
           {{"serviceAccountName", sa},
            {"restartPolicy", "Never"},
            {"containers", ojson::array({{{"name", "create-snapshot"},
                                          {"image", options.schedule_image},
                                          {"command", ojson::array({"/bin/sh", "-ec", script})}}})}}}}}}}};
  plan.objects.push_back({{"apiVersion", "batch/v1"},
                          {"kind", "CronJob"},
                          {"metadata", {{"name", s}, {"namespace", ns}}},
                          {"spec", cron_spec}});
  plan.verdicts.push_back({"W17", "there is no schedule kind in v1alpha2: the CronJob below is printed only; "
                                  "review its image, schedule and RBAC, then apply it yourself"});
  plan.verdicts.push_back({"W18", "the legacy schedule is left in place; after applying the CronJob remove it: "
                                  "kubectl -n " + ns + " delete etcdbackupschedules." + std::string(op::kLegacyGroup) +
                                  " " + s});
  return plan;
}

ojson to_json(const BackupPlan& plan) {
  ojson j = {{"kind", plan.kind},
             {"namespace", plan.ns},
             {"name", plan.name},
             {"cluster", plan.cluster},
             {"action", action_name(plan.action)},
             {"deletesLegacy", plan.deletes_legacy},
             {"verdicts", to_json(plan.verdicts)}};
  if (!plan.artefact.empty()) j["artefact"] = plan.artefact;
  if (!plan.objects.empty()) j["objects"] = plan.objects;
  return j;
}

}  // namespace migrate
