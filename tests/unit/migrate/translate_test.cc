#include "migrate/translate.h"

#include <doctest/doctest.h>

TEST_CASE("X.Y.Z versions only") {
  CHECK(migrate::is_semver_triplet("3.5.12"));
  CHECK(migrate::is_semver_triplet("10.0.100"));
  for (const char* s : {"v3.5.12", "3.5", "3.5.12-0", "3..5", "3.5.", ".3.5", "3.5.12.1", "", "a.b.c"}) {
    CAPTURE(s);
    CHECK_FALSE(migrate::is_semver_triplet(s));
  }
}

TEST_CASE("strict base-10 int64") {
  long long v = 0;
  CHECK(migrate::parse_int64_strict("10200547328", v));
  CHECK(v == 10200547328LL);
  CHECK(migrate::parse_int64_strict("+5", v));
  CHECK(v == 5);
  CHECK(migrate::parse_int64_strict("-1", v));
  CHECK(v == -1);
  for (const char* s : {"", "+", "8Gi", " 1", "1_000", "1e3", "9223372036854775808", "0x10"}) {
    CAPTURE(s);
    CHECK_FALSE(migrate::parse_int64_strict(s, v));
  }
}

TEST_CASE("an etcd image that is not a string blocks with B3 naming the field") {
  auto object = nlohmann::json::parse(R"({"apiVersion":"etcd.aenix.io/v1alpha1","kind":"EtcdCluster",
    "metadata":{"name":"etcd","namespace":"ns"},
    "spec":{"replicas":1,"podTemplate":{"spec":{"containers":[{"name":"etcd","image":5}]}}}})");
  auto t = migrate::translate_spec(op::LegacyCluster::from(object), {}, migrate::ClusterFacts{}, migrate::PlanOptions{});
  bool found = false;
  for (const auto& v : t.verdicts) {
    if (v.id != "B3") continue;
    found = true;
    CHECK(v.message.find("spec.podTemplate.spec.containers[etcd].image: expected a string, found an integer") !=
          std::string::npos);
  }
  CHECK(found);
}
