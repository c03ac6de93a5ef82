// Under the ValidatingAdmissionPolicy newer operators install
// (docs/operator-contract.md#deleting-an-etcdmember; an equivalent bound to
// this test's namespace only): a plain delete of an EtcdMember is denied,
// break-glass remove and replace still work (they set the consent
// annotation first), and the other commands run without a single denial.
#include "member_e2e.h"

using namespace member_e2e;

namespace {

void no_denial(const e2e::CommandResult& r, const std::string& what) {
  INFO(what << ": rc " << r.rc << "\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.err.find(e2e::DeletionPolicy::kMessage) == std::string::npos);
  CHECK(r.err.find("denied") == std::string::npos);
}

}  // namespace

TEST_CASE("break-glass remove and replace under the deletion policy; nothing else deletes an EtcdMember") {
  NativeCluster c(runner_fixture("3.6", 3));
  const auto ms = c.members();
  e2e::DeletionPolicy policy(c.ns());  // declared after the cluster: removed before its teardown
  policy.wait_enforced(ms[0]);

  // The policy is in force: kubectl's own delete is refused.
  auto plain = e2e::kubectl_result({"delete", "etcdmember", ms[1], "-n", c.ns(), "--wait=false"});
  CHECK(plain.rc != 0);
  CHECK(plain.err.find(e2e::DeletionPolicy::kMessage) != std::string::npos);
  CHECK(c.kubectl({"get", "etcdmember", ms[1], "-o", "jsonpath={.metadata.deletionTimestamp}"}).empty());

  // Commands that read or change other things: no denial, and every
  // EtcdMember is still there and not deleting.
  for (const auto& cmd : std::vector<std::vector<std::string>>{
           {"health"}, {"check"}, {"status"}, {"member", "list"}, {"hashkv"}, {"alarm", "list"}, {"compact"},
           {"defrag", "--all"}, {"move-leader", ms[1]}}) {
    auto r = c.tool(cmd);
    std::string joined;
    for (const auto& a : cmd) joined += a + " ";
    CHECK_MESSAGE(r.rc == 0, joined << r.err);
    no_denial(r, joined);
  }
  auto unwedge = c.tool({"member", "unwedge"}, {"--yes"});
  no_denial(unwedge, "member unwedge");
  for (const auto& m : ms) {
    CHECK(c.kubectl({"get", "etcdmember", m, "-o", "jsonpath={.metadata.deletionTimestamp}"}).empty());
  }

  // Break-glass replace: the EtcdMember goes (consent first), a new one takes its place.
  REQUIRE(c.tool({"move-leader", ms[0]}).rc == 0);
  auto rr = member(c, {"replace", ms[1], "-o", "json"});
  no_denial(rr, "member replace");
  REQUIRE_MESSAGE(rr.rc == 0, rr.err);
  CHECK(c.kubectl({"get", "etcdmember", "-o", "name"}).find(ms[1]) == std::string::npos);
  CHECK(voters(c) == 3);

  // Break-glass remove with --scale-down.
  auto rm = member(c, {"remove", ms[2], "--scale-down", "-o", "json"});
  no_denial(rm, "member remove");
  REQUIRE_MESSAGE(rm.rc == 0, rm.err);
  CHECK(c.kubectl({"get", "etcdmember", "-o", "name"}).find(ms[2]) == std::string::npos);
  CHECK(voters(c) == 2);
  check_i1_i3(c, "after remove under the policy");

  // The policy still denies a delete without the annotation.
  auto again = e2e::kubectl_result({"delete", "etcdmember", ms[0], "-n", c.ns(), "--dry-run=server"});
  CHECK(again.rc != 0);
  CHECK(again.err.find(e2e::DeletionPolicy::kMessage) != std::string::npos);
}
