#include <doctest/doctest.h>

#include "migrate/request.h"
#include "operator/names.h"

namespace {

migrate::AdoptRequest base_request() {
  migrate::AdoptRequest r;
  r.legacy_controller = std::string(op::kDefaultLegacyController);
  r.new_controller = std::string(op::kDefaultNewController);
  return r;
}

base::ErrorKind kind_of(const migrate::AdoptRequest& r) {
  auto v = migrate::validate(r);
  REQUIRE_FALSE(v.ok());
  return v.error().kind;
}

}  // namespace

TEST_CASE("controller coordinates must be NAMESPACE/NAME, even with --skip-controller-check") {
  for (const char* bad : {"", "x", "/x", "x/", "a/b/c"}) {
    auto r = base_request();
    r.skip_controller_check = true;
    r.legacy_controller = bad;
    CHECK(kind_of(r) == base::ErrorKind::Usage);
  }
  auto c = migrate::parse_coordinates("--new-controller", "ns/name");
  REQUIRE(c.ok());
  CHECK(c->ns == "ns");
  CHECK(c->name == "name");
}

TEST_CASE("--apply with --dry-run is a usage error") {
  auto r = base_request();
  r.apply = true;
  r.dry_run = true;
  r.skip_backup = true;
  CHECK(kind_of(r) == base::ErrorKind::Usage);
}

TEST_CASE("backup flags: the reference's rules in order, plus the safety backup's modes") {
  auto r = base_request();
  r.skip_backup = true;
  r.backup_dir = "/tmp/x";
  CHECK(kind_of(r) == base::ErrorKind::Usage);  // skip + destination

  r = base_request();
  r.pvc_claim = "claim";  // stream mode (default)
  CHECK(kind_of(r) == base::ErrorKind::Usage);

  r = base_request();
  r.backup_mode = "job";
  r.backup_dir = "/tmp/x";
  CHECK(kind_of(r) == base::ErrorKind::Usage);

  r = base_request();
  r.backup_mode = "job";
  r.pvc_claim = "claim";
  r.s3_endpoint = "https://s3";
  CHECK(kind_of(r) == base::ErrorKind::Usage);  // both destinations

  r = base_request();
  r.backup_mode = "job";
  r.s3_endpoint = "https://s3";
  r.s3_bucket = "b";
  CHECK(kind_of(r) == base::ErrorKind::Usage);  // job mode needs the credentials Secret

  r = base_request();
  r.s3_endpoint = "https://s3";
  r.s3_bucket = "b";
  auto ok = migrate::validate(r);  // stream mode may use the AWS_* environment
  REQUIRE(ok.ok());
  CHECK(ok->s3);
  CHECK(ok->backup_configured);

  r = base_request();
  r.apply = true;  // --apply streams to S3, alone or with --backup-dir
  r.s3_endpoint = "https://s3";
  r.s3_bucket = "b";
  r.backup_dir = "/tmp/x";
  auto both = migrate::validate(r);
  REQUIRE(both.ok());
  CHECK(both->s3);
  CHECK(both->backup_mode == migrate::BackupMode::Stream);

  r = base_request();
  r.apply = true;  // neither destination nor --skip-backup
  CHECK(kind_of(r) == base::ErrorKind::Usage);

  r = base_request();  // a dry-run may go without (W16)
  auto dry = migrate::validate(r);
  REQUIRE(dry.ok());
  CHECK_FALSE(dry->backup_configured);
}

TEST_CASE("--connect: auto is port-forward outside a cluster and direct inside (docs/rules.md#connect-modes)") {
  auto r = base_request();
  auto v = migrate::validate(r);
  REQUIRE(v.ok());
  CHECK(v->connect == migrate::Connect::PortForward);
  r.in_cluster = true;
  CHECK(migrate::validate(r)->connect == migrate::Connect::Direct);
  r.connect = "port-forward";
  CHECK(migrate::validate(r)->connect == migrate::Connect::PortForward);
  r.connect = "direct";
  r.in_cluster = false;
  CHECK(migrate::validate(r)->connect == migrate::Connect::Direct);
  r.connect = "tunnel";
  CHECK(kind_of(r) == base::ErrorKind::Usage);
}

TEST_CASE("durations and bounds") {
  auto r = base_request();
  r.backup_timeout = "1h30m";
  auto v = migrate::validate(r);
  REQUIRE(v.ok());
  CHECK(v->backup_timeout == std::chrono::minutes(90));
  r.backup_timeout = "soon";
  CHECK(kind_of(r) == base::ErrorKind::Usage);
  r = base_request();
  r.concurrency = 0;
  CHECK(kind_of(r) == base::ErrorKind::Usage);
}
