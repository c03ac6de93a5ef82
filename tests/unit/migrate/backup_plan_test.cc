#include <doctest/doctest.h>

#include "migrate/backup_plan.h"
#include "operator/names.h"
#include "output/yaml_emit.h"

using json = nlohmann::json;

namespace {

json backup(json destination, json status = json::object()) {
  return {{"apiVersion", "etcd.aenix.io/v1alpha1"},
          {"kind", "EtcdBackup"},
          {"metadata", {{"name", "nightly"}, {"namespace", "tenant"}}},
          {"spec", {{"clusterRef", {{"name", "etcd"}}}, {"destination", destination}}},
          {"status", status}};
}

const json kS3 = {{"s3",
                   {{"endpoint", "https://s3.example"},
                    {"bucket", "b"},
                    {"key", ""},
                    {"region", "eu-1"},
                    {"forcePathStyle", false},
                    {"credentialsSecretRef", {{"name", "creds"}}}}}};

migrate::BackupPlanOptions opts() {
  migrate::BackupPlanOptions o;
  o.schedule_image = std::string(op::kDefaultScheduleImage);
  return o;
}

}  // namespace

TEST_CASE("a pending backup of an adopted cluster becomes an EtcdSnapshot: empty key, false flag left out") {
  auto p = migrate::plan_backup(backup(kS3), false, migrate::ClusterState::AdoptedNow, opts());
  CHECK(p.action == migrate::BackupAction::Create);
  CHECK(p.deletes_legacy);
  REQUIRE(p.objects.size() == 1);
  json expected = {{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"},
                   {"kind", "EtcdSnapshot"},
                   {"metadata", {{"name", "nightly"}, {"namespace", "tenant"}}},
                   {"spec",
                    {{"clusterRef", {{"name", "etcd"}}},
                     {"destination",
                      {{"s3",
                        {{"endpoint", "https://s3.example"},
                         {"bucket", "b"},
                         {"region", "eu-1"},
                         {"credentialsSecretRef", {{"name", "creds"}}}}}}}}}};
  CHECK(json(p.objects[0]) == expected);
  CHECK(p.verdicts.at(0).id == "N8");
}

TEST_CASE("a pending backup waits for its cluster's adoption; an existing snapshot makes it Skip (N9)") {
  auto waiting = migrate::plan_backup(backup(kS3), false, migrate::ClusterState::NotAdopted, opts());
  CHECK(waiting.action == migrate::BackupAction::Wait);
  CHECK_FALSE(waiting.deletes_legacy);
  CHECK(waiting.objects.empty());
  auto skip = migrate::plan_backup(backup(kS3), true, migrate::ClusterState::AdoptedBefore, opts());
  CHECK(skip.action == migrate::BackupAction::Skip);
  CHECK(skip.deletes_legacy);
  CHECK(skip.verdicts.at(0).id == "N9");
}

TEST_CASE("completed and failed backups are kept with their artefact (N12) unless converted") {
  json done = {{"snapshot", {{"uri", "s3://b/etcd-1.db"}, {"checksum", "sha256:00"}, {"sizeBytes", 10}}}};
  auto keep = migrate::plan_backup(backup(kS3, done), false, migrate::ClusterState::AdoptedNow, opts());
  CHECK(keep.action == migrate::BackupAction::Keep);
  CHECK(keep.artefact == "s3://b/etcd-1.db");
  CHECK(keep.verdicts.at(0).id == "N12");
  CHECK(keep.verdicts.at(0).message.find("s3://b/etcd-1.db") != std::string::npos);

  json failed = {{"phase", "Failed"}};
  CHECK(migrate::legacy_backup_state(backup(kS3, failed)) == migrate::LegacyBackupState::Failed);
  CHECK(migrate::plan_backup(backup(kS3, failed), false, migrate::ClusterState::AdoptedNow, opts()).action ==
        migrate::BackupAction::Keep);

  auto o = opts();
  o.convert_completed = true;
  CHECK(migrate::plan_backup(backup(kS3, done), false, migrate::ClusterState::AdoptedNow, o).action ==
        migrate::BackupAction::Create);
}

TEST_CASE("B13: both or neither destination") {
  json both = kS3;
  both["pvc"] = {{"claimName", "c"}};
  auto p = migrate::plan_backup(backup(both), false, migrate::ClusterState::AdoptedNow, opts());
  CHECK(p.action == migrate::BackupAction::Error);
  CHECK(p.verdicts.at(0).id == "B13");
  CHECK(p.verdicts.at(0).message.find("spec.destination:") == 0);
  auto none = migrate::plan_backup(backup(json::object()), false, migrate::ClusterState::AdoptedNow, opts());
  CHECK(none.verdicts.at(0).id == "B13");
}

TEST_CASE("backup schedules: a schedule prints SA, Role, RoleBinding and a Forbid CronJob with the chosen image") {
  json schedule = {{"metadata", {{"name", "hourly"}, {"namespace", "tenant"}}},
                   {"spec",
                    {{"clusterRef", {{"name", "etcd"}}},
                     {"schedule", "0 * * * *"},
                     {"successfulJobsHistoryLimit", 3},
                     {"destination", {{"pvc", {{"claimName", "backups"}, {"subPath", ""}}}}}}}};
  auto o = opts();
  o.schedule_image = "registry.local/kubectl:1.33";
  auto p = migrate::plan_schedule(schedule, o);
  CHECK(p.action == migrate::BackupAction::Print);
  CHECK_FALSE(p.deletes_legacy);
  REQUIRE(p.objects.size() == 4);
  CHECK(p.objects[0]["kind"] == "ServiceAccount");
  CHECK(p.objects[0]["metadata"]["name"] == "hourly-snapshotter");
  CHECK(p.objects[1]["rules"][0]["resources"][0] == "etcdsnapshots");
  CHECK(p.objects[1]["rules"][0]["verbs"][0] == "create");
  CHECK(p.objects[2]["subjects"][0]["name"] == "hourly-snapshotter");
  const auto& cron = p.objects[3];
  CHECK(cron["kind"] == "CronJob");
  CHECK(cron["spec"]["schedule"] == "0 * * * *");
  CHECK(cron["spec"]["concurrencyPolicy"] == "Forbid");
  CHECK(cron["spec"]["successfulJobsHistoryLimit"] == 3);
  CHECK_FALSE(cron["spec"].contains("failedJobsHistoryLimit"));
  const auto& pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  CHECK(pod["restartPolicy"] == "Never");
  CHECK(pod["containers"][0]["image"] == "registry.local/kubectl:1.33");
  std::string script = pod["containers"][0]["command"][2];
  CHECK(script.rfind("kubectl create -f - <<'EOF'\n", 0) == 0);
  CHECK(script.find("generateName: hourly-\n") != std::string::npos);
  CHECK(script.find("claimName: backups") != std::string::npos);
  CHECK(script.find("subPath") == std::string::npos);
  CHECK(script.size() >= 4);
  CHECK(script.substr(script.size() - 4) == "EOF\n");
  std::vector<std::string> ids;
  for (const auto& v : p.verdicts) ids.push_back(v.id);
  CHECK(ids == std::vector<std::string>{"W17", "W18"});
  CHECK(p.verdicts[1].message.find("delete etcdbackupschedules.etcd.aenix.io hourly") != std::string::npos);
}
