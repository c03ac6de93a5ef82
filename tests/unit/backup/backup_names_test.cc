#include "operator/backup_names.h"

#include <doctest/doctest.h>

TEST_CASE("the artefact is named as the operator's snapshot agent names it") {
  CHECK(op::migration_snapshot_name("prod", "etcd") == "prod-etcd-migration");
  CHECK(op::migration_snapshot_file("prod", "etcd") == "prod-etcd-migration.db");
  CHECK(op::snapshot_uid_file("/data/prod-etcd-migration.db") == "/data/prod-etcd-migration.db.uid");
}

TEST_CASE("S3 key: prefix/file, no separator added after a trailing '/', the file alone without prefix") {
  CHECK(op::snapshot_object_key("backups/etcd", "n-c-migration.db") == "backups/etcd/n-c-migration.db");
  CHECK(op::snapshot_object_key("backups/etcd/", "n-c-migration.db") == "backups/etcd/n-c-migration.db");
  CHECK(op::snapshot_object_key("", "n-c-migration.db") == "n-c-migration.db");
}

TEST_CASE("the backup Job is <c>-migration-snapshot while that fits in 63 characters") {
  CHECK(op::migration_snapshot_job("etcd") == "etcd-migration-snapshot");
  std::string c44(44, 'c');  // 44 + 19 = 63
  CHECK(op::migration_snapshot_job(c44) == c44 + "-migration-snapshot");
}

TEST_CASE("a longer backup Job name is cut to 63 with a hash of the whole cluster name") {
  std::string a = std::string(50, 'a') + "-one";
  std::string b = std::string(50, 'a') + "-two";
  auto ja = op::migration_snapshot_job(a), jb = op::migration_snapshot_job(b);
  CHECK(ja.size() == 63);
  CHECK(jb.size() == 63);
  CHECK(ja != jb);
  CHECK(ja.substr(ja.size() - 19) == "-migration-snapshot");
  CHECK(ja.rfind(std::string(35, 'a'), 0) == 0);
  // A cut that lands on a '-' does not leave "--".
  std::string dashes = std::string(34, 'x') + "-" + std::string(40, 'y');
  CHECK(op::migration_snapshot_job(dashes).find("--") == std::string::npos);
  CHECK(op::migration_snapshot_job(dashes).size() <= 63);
}
