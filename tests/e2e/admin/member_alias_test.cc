// The Go plugin's names for member removal: `remove-member
// <hex>` and `leave -p <pod>` run `member remove` with its plan, flags and
// confirmation.
#include "member_e2e.h"

using namespace member_e2e;

namespace {

// kubectl-etcd VERB... with the cluster, break-glass alongside the
// fixture's (simulated, active) operator.
e2e::CommandResult alias(const NativeCluster& c, std::vector<std::string> args, bool yes = true) {
  std::vector<std::string> argv{NativeCluster::binary()};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const auto& a : {std::string("-c"), c.name(), std::string("-n"), c.ns(), std::string("--connect"),
                        std::string("direct"), std::string("--operator"), c.ns() + "/etcd-operator",
                        std::string("--break-glass"), std::string("--skip-operator-check")}) {
    argv.push_back(a);
  }
  if (yes) argv.push_back("--yes");
  return e2e::run(argv);
}

}  // namespace

TEST_CASE("remove-member <hex> and leave -p are member remove") {
  NativeCluster c(FixtureOptions{});
  const auto ms = c.members();
  REQUIRE(c.tool({"move-leader", ms[0]}).rc == 0);

  // The same plan as `member remove`, the ID given in hex without its zeros.
  std::string id = c.id_of(ms[2]);
  const std::string short_id = id.substr(id.find_first_not_of('0'));
  auto via_alias = alias(c, {"remove-member", short_id, "--scale-down", "--dry-run", "-o", "json"});
  auto via_member = member(c, {"remove", ms[2], "--scale-down", "--dry-run", "-o", "json"});
  REQUIRE_MESSAGE(via_alias.rc == 0, via_alias.err);
  REQUIRE_MESSAGE(via_member.rc == 0, via_member.err);
  CHECK(json::parse(via_alias.out) == json::parse(via_member.out));
  // Never decimal: 20 digits are not a hex ID (usage error).
  CHECK(alias(c, {"remove-member", "12345678901234567890"}).rc == 128);
  // The same confirmation: without a terminal and without --yes, refused.
  auto noyes = alias(c, {"remove-member", short_id}, false);
  CHECK(noyes.rc == 3);
  CHECK(noyes.err.find("--yes") != std::string::npos);
  CHECK(etcd_members(c).size() == 3);

  auto rm = alias(c, {"remove-member", short_id, "--scale-down", "-o", "json"});
  INFO("remove-member: " << rm.out << rm.err);
  REQUIRE(rm.rc == 0);
  CHECK(json::parse(rm.out)["member"] == ms[2]);
  CHECK(etcd_members(c).size() == 2);
  CHECK(alias(c, {"remove-member", short_id}).rc == 6);  // gone now

  // leave: the member of -p.
  CHECK(alias(c, {"leave"}).rc == 128);  // -p is required
  auto lv = alias(c, {"leave", "-p", ms[1], "--scale-down", "-o", "json"});
  INFO("leave: " << lv.out << lv.err);
  REQUIRE(lv.rc == 0);
  CHECK(json::parse(lv.out)["member"] == ms[1]);
  CHECK(etcd_members(c).size() == 1);
  CHECK(c.kubectl({"get", "etcdcluster", c.name(), "-o", "jsonpath={.spec.replicas}/{.status.observed.replicas}"}) ==
        "1/1");
  check_i1_i3(c, "after the aliases");

  // A pod that is not a member of the cluster: exit 6 (docs/exit-codes.md#special-cases).
  c.kubectl({"run", "stranger", "--image=busybox", "--restart=Never", "--labels",
             "etcd-operator.cozystack.io/cluster=" + c.name()});
  auto stranger = alias(c, {"leave", "-p", "stranger"});
  CHECK(stranger.rc == 6);
  CHECK(alias(c, {"leave", "-p", "nobody"}).rc == 6);
  // The last member stays (refused as `member remove` refuses it).
  CHECK(alias(c, {"leave", "-p", ms[0], "--scale-down"}).rc == 3);
}
