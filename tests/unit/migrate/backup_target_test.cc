#include "migrate/backup_target.h"

#include <doctest/doctest.h>

TEST_CASE("the S3 location is the --backup-s3-* flags, unchanged") {
  migrate::AdoptRequest r;
  r.s3_endpoint = "http://127.0.0.1:9000";
  r.s3_bucket = "backups";
  r.s3_region = "eu-west-1";
  r.s3_key = "etcd/";
  r.s3_force_path_style = true;
  auto l = migrate::s3_location(r);
  CHECK(l.endpoint == "http://127.0.0.1:9000");
  CHECK(l.bucket == "backups");
  CHECK(l.region == "eu-west-1");
  CHECK(l.force_path_style);
  CHECK(l.ca_file.empty());
  r.s3_force_path_style = false;
  CHECK_FALSE(migrate::s3_location(r).force_path_style);
}
