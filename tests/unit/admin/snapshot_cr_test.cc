#include <doctest/doctest.h>

#include "admin/snapshot.h"
#include "fixtures.h"
#include "operator/names.h"
#include "support.h"

using namespace admin_test;

namespace {

const auto at_2026_03_04_05_06_07 = [] { return unit_test::utc(2026, 3, 4, 5, 6, 7); };

}  // namespace

TEST_CASE("the default EtcdSnapshot name is <cluster>-<UTC yyyymmdd-hhmmss>") {
  CHECK(op::snapshot_cr_name("etcd", at_2026_03_04_05_06_07()) == "etcd-20260304-050607");
}

TEST_CASE("an EtcdSnapshot to a PVC") {
  admin::SnapshotCrRequest r;
  r.pvc = "backups";
  r.sub_path = "etcd";
  auto o = admin::snapshot_cr(admin_test::cluster_target(), r, at_2026_03_04_05_06_07());
  REQUIRE(o.ok());
  CHECK(o->dump() ==
        R"({"apiVersion":"etcd-operator.cozystack.io/v1alpha2","kind":"EtcdSnapshot","metadata":{"name":"c-20260304-050607","namespace":"ns"},"spec":{"clusterRef":{"name":"c"},"destination":{"pvc":{"claimName":"backups","subPath":"etcd"}}}})");
}

TEST_CASE("an EtcdSnapshot to S3 with a name of one's own") {
  admin::SnapshotCrRequest r;
  r.name = "mine";
  r.s3_endpoint = "https://s3.example";
  r.s3_bucket = "b";
  r.s3_secret = "creds";
  r.s3_key = "k/";
  r.s3_force_path_style = true;
  auto o = admin::snapshot_cr(admin_test::cluster_target(), r, at_2026_03_04_05_06_07());
  REQUIRE(o.ok());
  CHECK((*o)["metadata"]["name"] == "mine");
  CHECK((*o)["spec"]["destination"]["s3"] ==
        json{{"endpoint", "https://s3.example"},
             {"bucket", "b"},
             {"credentialsSecretRef", {{"name", "creds"}}},
             {"key", "k/"},
             {"forcePathStyle", true}});
}

TEST_CASE("--via-cr needs exactly one complete destination and a cluster") {
  admin::SnapshotCrRequest none;
  CHECK(admin::snapshot_cr(admin_test::cluster_target(), none, {}).error().kind == base::ErrorKind::Usage);
  admin::SnapshotCrRequest both;
  both.pvc = "p";
  both.s3_bucket = "b";
  CHECK(admin::snapshot_cr(admin_test::cluster_target(), both, {}).error().kind == base::ErrorKind::Usage);
  admin::SnapshotCrRequest partial;
  partial.s3_bucket = "b";
  CHECK(admin::snapshot_cr(admin_test::cluster_target(), partial, {}).error().kind == base::ErrorKind::Usage);
  admin::SnapshotCrRequest pvc;
  pvc.pvc = "p";
  CHECK(admin::snapshot_cr(admin::Target{}, pvc, {}).error().kind == base::ErrorKind::Usage);
}
