// Adoption under the ValidatingAdmissionPolicy newer operators install
// (docs/operator-contract.md#deleting-an-etcdmember; an equivalent bound to
// this test's namespace only): adopt --apply, its re-run and verify never
// delete an EtcdMember, so none of them meets a denial, and every EtcdMember
// stays. The policy is created before the adoption starts; the apiserver
// loads it within about a second, long before adoption creates its first
// EtcdMember (the safety snapshot and the legacy objects come first). The
// re-run and verify run after the policy is proven in force.
#include <doctest/doctest.h>

#include "adopt_checks.h"

using json = nlohmann::json;

namespace {

void no_denial(const e2e::CommandResult& r, const std::string& what) {
  INFO(what << ": rc " << r.rc << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.rc == 0);
  CHECK(r.err.find(e2e::DeletionPolicy::kMessage) == std::string::npos);
  CHECK(r.out.find(e2e::DeletionPolicy::kMessage) == std::string::npos);
  CHECK(r.err.find("denied") == std::string::npos);
}

}  // namespace

TEST_CASE("adopt --apply, a re-run and verify under the EtcdMember deletion policy") {
  e2e::Namespace ns("e2e-apply-vap");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls"});
  e2e::DeletionPolicy policy(ns.name());  // after the fixture: removed before its teardown

  no_denial(e2e::apply(f, {"--skip-backup"}), "adopt --apply");
  auto members = json::parse(e2e::kubectl({"-n", ns.name(), "get", "etcdmembers", "-o", "json"}))["items"];
  REQUIRE(members.size() == 3);
  policy.wait_enforced(members[0]["metadata"]["name"]);

  no_denial(e2e::apply(f, {"--skip-backup"}), "adopt --apply (re-run)");
  auto verified = e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd", "-o", "json"});
  no_denial(verified, "verify");
  auto doc = json::parse(verified.out);
  bool hashkv = false;
  for (const auto& c : doc["clusters"][0]["checks"]) {
    if (c["code"] == "HASHKV") hashkv = c["ok"] == true;
  }
  CHECK_MESSAGE(hashkv, verified.out);

  auto after = json::parse(e2e::kubectl({"-n", ns.name(), "get", "etcdmembers", "-o", "json"}))["items"];
  REQUIRE(after.size() == 3);
  for (std::size_t i = 0; i < after.size(); ++i) {
    CHECK_FALSE(after[i]["metadata"].contains("deletionTimestamp"));
    CHECK(after[i]["metadata"]["uid"] == members[i]["metadata"]["uid"]);  // lists come sorted by name
  }
}
