#include "admin/restore_check.h"
#include "admin/restore_plan.h"

#include <set>

#include <doctest/doctest.h>

namespace {

admin::RestoreRequest s3_file() {
  admin::RestoreRequest r;
  r.ns = "prod";
  r.name = "etcd-new";
  r.version = "3.6.11";
  r.file = "/backups/etcd.db";
  r.s3_endpoint = "http://s3.local:9000";
  r.s3_bucket = "backups";
  r.s3_secret = "s3-creds";
  r.s3_force_path_style = true;
  return r;
}

std::vector<std::string> step_names(const admin::RestorePlan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps) out.push_back(admin::restore_step_name(s.id));
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("a file to S3: checked, uploaded under <name>-restore.db, then dry-run and create") {
  auto p = admin::plan_restore(s3_file());
  REQUIRE(p.ok());
  CHECK_FALSE(p->refused());
  CHECK(step_names(*p) == V{"verify-file", "read-credentials", "upload", "server-dry-run", "create"});
  CHECK(p->source == "s3://backups/etcd-new-restore.db");
  const auto& o = p->object;
  CHECK(o["apiVersion"] == "etcd-operator.cozystack.io/v1alpha2");
  CHECK(o["kind"] == "EtcdCluster");
  CHECK(o["metadata"]["namespace"] == "prod");
  CHECK(o["spec"]["replicas"] == 3);
  CHECK(o["spec"]["version"] == "3.6.11");
  CHECK(o["spec"]["storage"] == nlohmann::ordered_json::object());
  const auto& s3 = o["spec"]["bootstrap"]["restore"]["source"]["s3"];
  CHECK(s3["key"] == "etcd-new-restore.db");
  CHECK(s3["bucket"] == "backups");
  CHECK(s3["endpoint"] == "http://s3.local:9000");
  CHECK(s3["credentialsSecretRef"]["name"] == "s3-creds");
  CHECK(s3["forcePathStyle"] == true);
  CHECK_FALSE(s3.contains("region"));
  CHECK_FALSE(o["spec"]["bootstrap"]["restore"]["source"].contains("pvc"));
}

TEST_CASE("an existing S3 object: its exact key, checked instead of uploaded") {
  auto r = s3_file();
  r.file.clear();
  r.s3_key = "daily/etcd-2026.db";
  auto p = admin::plan_restore(r);
  REQUIRE(p.ok());
  CHECK(step_names(*p) == V{"read-credentials", "check-object", "server-dry-run", "create"});
  CHECK(p->object["spec"]["bootstrap"]["restore"]["source"]["s3"]["key"] == "daily/etcd-2026.db");
  r.s3_key.clear();
  CHECK(admin::plan_restore(r).error().kind == base::ErrorKind::Usage);
}

TEST_CASE("a PVC source: an existing claim and its exact file; a local file is not copied into it") {
  admin::RestoreRequest r;
  r.ns = "prod";
  r.name = "etcd-new";
  r.version = "3.5.21";
  r.replicas = 1;
  r.storage_size = "2Gi";
  r.pvc = "snapshots";
  r.pvc_path = "etcd/2026.db";
  auto p = admin::plan_restore(r);
  REQUIRE(p.ok());
  CHECK(step_names(*p) == V{"check-pvc", "server-dry-run", "create"});
  CHECK(p->object["spec"]["bootstrap"]["restore"]["source"]["pvc"] ==
        nlohmann::ordered_json{{"claimName", "snapshots"}, {"subPath", "etcd/2026.db"}});
  CHECK(p->object["spec"]["storage"]["size"] == "2Gi");
  CHECK(p->object["spec"]["replicas"] == 1);
  r.file = "/backups/etcd.db";
  CHECK(admin::plan_restore(r).error().kind == base::ErrorKind::Usage);
  r.file.clear();
  r.pvc_path.clear();
  CHECK(admin::plan_restore(r).error().kind == base::ErrorKind::Usage);
}

TEST_CASE("exactly one source, the S3 coordinates complete, a version") {
  auto r = s3_file();
  r.pvc = "snapshots";
  r.pvc_path = "x.db";
  CHECK(admin::plan_restore(r).error().kind == base::ErrorKind::Usage);
  r = s3_file();
  r.s3_secret.clear();
  CHECK(admin::plan_restore(r).error().kind == base::ErrorKind::Usage);
  r = s3_file();
  r.version = "3.6";
  CHECK(admin::plan_restore(r).error().kind == base::ErrorKind::Usage);
  admin::RestoreRequest none;
  none.name = "x";
  none.version = "3.6.11";
  CHECK(admin::plan_restore(none).error().kind == base::ErrorKind::Usage);
}

TEST_CASE("refused: an etcd without etcdutl, no member to restore into") {
  auto r = s3_file();
  r.version = "3.4.33";
  auto p = admin::plan_restore(r);
  REQUIRE(p.ok());
  REQUIRE(p->refused());
  CHECK(p->refusals.front().find("etcdutl") != std::string::npos);
  r = s3_file();
  r.replicas = 0;
  CHECK(admin::plan_restore(r)->refused());
}

TEST_CASE("the plan's document and text show the object") {
  auto p = admin::plan_restore(s3_file());
  REQUIRE(p.ok());
  auto doc = admin::restore_plan_document(*p);
  CHECK(doc["object"] == p->object);
  CHECK(doc["steps"].size() == 5);
  auto text = admin::restore_plan_text(*p);
  CHECK(text.find("restore prod/etcd-new from s3://backups/etcd-new-restore.db") == 0);
  CHECK(text.find("\"bootstrap\"") != std::string::npos);
}

TEST_CASE("the dry-run's output: the plan, what each check found, and the refusals of plan and checks") {
  auto p = admin::plan_restore(s3_file());
  REQUIRE(p.ok());
  admin::RestoreCheck c;
  c.steps = {{admin::RestoreStepId::VerifyFile, "done", "sha256 ab, 4128 bytes, auth enabled"},
             {admin::RestoreStepId::ReadCredentials, "done", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY present"},
             {admin::RestoreStepId::Upload, "pending", "4128 bytes to s3://backups/etcd-new-restore.db"},
             {admin::RestoreStepId::ServerDryRun, "did", "accepted"},
             {admin::RestoreStepId::Create, "pending", "EtcdCluster prod/etcd-new"}};
  c.refusals = {"the snapshot has auth enabled: ..."};
  auto text = admin::restore_check_text(*p, c);
  CHECK(text.find("checked (nothing was changed):\n  verify-file: done (sha256 ab, 4128 bytes, auth enabled)\n") !=
        std::string::npos);
  CHECK(text.find("  upload: pending (4128 bytes to s3://backups/etcd-new-restore.db)\n") != std::string::npos);
  CHECK(text.find("  refused: the snapshot has auth enabled") != std::string::npos);
  auto doc = admin::restore_check_document(*p, c);
  REQUIRE(doc["checks"].size() == 5);
  CHECK(doc["checks"][2] == nlohmann::ordered_json{{"step", "upload"}, {"outcome", "pending"},
                                                   {"detail", "4128 bytes to s3://backups/etcd-new-restore.db"}});
  CHECK(doc["refusals"] == nlohmann::ordered_json::array({"the snapshot has auth enabled: ..."}));
  CHECK(doc["object"]["kind"] == "EtcdCluster");
  // The one error a refused run and a refused dry-run end with.
  auto e = admin::restore_refusal(*p, c);
  CHECK(e.kind == base::ErrorKind::Refused);
  CHECK(e.one_line().find("etcd-new") != std::string::npos);
  CHECK(e.one_line().find("the snapshot has auth enabled") != std::string::npos);
}

TEST_CASE("restore's steps are an enum: each has one stable name, and a name parses back to its step") {
  using admin::RestoreStepId;
  std::set<std::string> names;
  for (RestoreStepId id : {RestoreStepId::VerifyFile, RestoreStepId::ReadCredentials, RestoreStepId::Upload,
                           RestoreStepId::CheckObject, RestoreStepId::CheckPvc, RestoreStepId::ServerDryRun,
                           RestoreStepId::Create}) {
    const std::string name = admin::restore_step_name(id);
    CHECK(names.insert(name).second);
    REQUIRE(admin::parse_restore_step(name).has_value());
    CHECK(*admin::parse_restore_step(name) == id);
  }
  CHECK_FALSE(admin::parse_restore_step("verify").has_value());
  auto p = admin::plan_restore(s3_file());
  REQUIRE(p.ok());
  CHECK(p->steps.front().id == RestoreStepId::VerifyFile);
  CHECK(p->steps.back().id == RestoreStepId::Create);
}
