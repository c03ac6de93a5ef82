#include "admin/member_object.h"

#include <doctest/doctest.h>

#include "operator/names.h"

using nlohmann::json;

TEST_CASE("EtcdMember predicates read what the operator writes, and nothing else") {
  const json blank = json::object();
  CHECK(admin::name_of(blank).empty());
  CHECK_FALSE(admin::deleting(blank));
  CHECK_FALSE(admin::dormant(blank));
  CHECK_FALSE(admin::awaiting_initial_cluster(blank));
  CHECK(admin::stored_id(blank) == 0);
  CHECK_FALSE(admin::has_member_finalizer(blank));

  const json m = {{"metadata",
                   {{"name", "etcd-2"},
                    {"deletionTimestamp", "2026-12-03T10:00:00Z"},
                    {"finalizers", {"other.example/keep", std::string(op::kMemberFinalizer)}}}},
                  {"spec", {{"dormant", true}, {"initialCluster", ""}}},
                  {"status", {{"memberID", "8e9e05c52164694d"}}}};
  CHECK(admin::name_of(m) == "etcd-2");
  CHECK(admin::deleting(m));
  CHECK(admin::dormant(m));
  CHECK(admin::awaiting_initial_cluster(m));
  CHECK(admin::stored_id(m) == 0x8e9e05c52164694dULL);
  CHECK(admin::has_member_finalizer(m));

  // Wrong types and other values are not taken for the flags.
  const json odd = {{"metadata", {{"finalizers", {"other.example/keep"}}}},
                    {"spec", {{"dormant", "true"}, {"initialCluster", "etcd-0=https://etcd-0:2380"}}},
                    {"status", {{"memberID", "not-an-id"}}}};
  CHECK_FALSE(admin::dormant(odd));
  CHECK_FALSE(admin::awaiting_initial_cluster(odd));
  CHECK(admin::stored_id(odd) == 0);
  CHECK_FALSE(admin::has_member_finalizer(odd));
}

TEST_CASE("in_memory: only storage.medium Memory") {
  CHECK(admin::in_memory(nlohmann::json::parse(R"({"spec": {"storage": {"medium": "Memory"}}})")));
  CHECK_FALSE(admin::in_memory(nlohmann::json::parse(R"({"spec": {"storage": {"size": "1Gi"}}})")));
  CHECK_FALSE(admin::in_memory(nlohmann::json::object()));
}
