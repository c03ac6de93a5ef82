// Crash safety of member add and remove (docs/break-glass-design.md,
// docs/break-glass-design.md#transient-findings): the tool is SIGKILLed right after each step of each table
// (KUBECTL_ETCD_TEST_KILL_AFTER), I1-I3 are checked at the stop, then the
// same command is run again and must finish the change with I4-I5 holding.
// A writer puts keys throughout and sees no error (the one handover aside:
// member_e2e.h).
#include <sstream>
#include <thread>

#include "admin/member_step.h"
#include "member_e2e.h"

using namespace member_e2e;

namespace {

// The tables' steps, from the step type itself: a step added to a table
// (between its first and last) is killed after too, without a list to update.
std::vector<std::string> steps(admin::MemberStep first, admin::MemberStep last) {
  std::vector<std::string> out;
  for (int s = static_cast<int>(first); s <= static_cast<int>(last); ++s) {
    out.emplace_back(admin::step_name(static_cast<admin::MemberStep>(s)));
  }
  return out;
}
const std::vector<std::string> kAddSteps = steps(admin::MemberStep::Grow, admin::MemberStep::Pdb);
const std::vector<std::string> kRemoveSteps = steps(admin::MemberStep::MoveLeader, admin::MemberStep::Count);

std::string replicas(const NativeCluster& c) {
  return c.kubectl({"get", "etcdcluster", c.name(), "-o", "jsonpath={.spec.replicas}/{.status.observed.replicas}"});
}

std::string newest_member(const NativeCluster& c, const std::vector<std::string>& fixture) {
  auto names = c.kubectl({"get", "etcdmember", "-o", "jsonpath={.items[*].metadata.name}"});
  std::istringstream in(names);
  std::string n;
  while (in >> n) {
    if (std::find(fixture.begin(), fixture.end(), n) == fixture.end()) return n;
  }
  return {};
}

}  // namespace

TEST_CASE("member add and remove resume after a SIGKILL at every step (etcd 3.6)") {
  NativeCluster c(runner_fixture("3.6", 3));
  const auto ms = c.members();
  Writer writer(c, endpoint_of(c, ms[0]));

  for (std::size_t i = 0; i < kAddSteps.size(); ++i) {
    const std::string& step = kAddSteps[i];
    CAPTURE(step);
    writer.phase("add killed after " + step);
    auto killed = member(c, {"add"}, {{"KUBECTL_ETCD_TEST_KILL_AFTER", step}});
    INFO("killed run: " << killed.err);
    REQUIRE(killed.rc == 137);
    check_i1_i3(c, "add stopped after " + step);
    if (step == "create-member") {
      // A pending member is a change in flight: other changes are refused.
      auto busy = member(c, {"remove", ms[1]});
      CHECK(busy.rc == 3);
      CHECK(busy.err.find("pending") != std::string::npos);
    }
    if (step != "mark-voter" && step != "pdb") {
      // After these the add is complete (no PDB in the fixture): a re-run
      // would add another member.
      auto rerun = member(c, {"add", "-o", "json"});
      INFO("re-run: " << rerun.out << rerun.err);
      REQUIRE(rerun.rc == 0);
    }
    check_clean(c, "add re-run after " + step);
    CHECK(replicas(c) == "4/4");
    const std::string added = newest_member(c, ms);
    REQUIRE_FALSE(added.empty());
    CHECK(c.kubectl({"get", "etcdmember", added, "-o", "jsonpath={.status.isVoter}"}) == "true");

    // Remove the member again, killed after one step of the removal table.
    if (i < kRemoveSteps.size()) {
      const std::string& rstep = kRemoveSteps[i];
      CAPTURE(rstep);
      // Only the remove that finds `added` leading moves leadership.
      writer.phase("remove killed after " + rstep, rstep == "move-leader");
      if (rstep == "move-leader") {
        auto ml = writer.quiet([&c, &added] { return c.tool({"move-leader", added}); });
        REQUIRE_MESSAGE(ml.rc == 0, ml.err);
      }
      auto rk = member(c, {"remove", added, "--scale-down"}, {{"KUBECTL_ETCD_TEST_KILL_AFTER", rstep}});
      INFO("killed remove: " << rk.err);
      REQUIRE(rk.rc == 137);
      check_i1_i3(c, "remove stopped after " + rstep);
      auto rr = member(c, {"remove", added, "--scale-down"});
      INFO("remove re-run: " << rr.out << rr.err);
      // After the last step there is nothing left to find.
      CHECK((rr.rc == 0 || (rstep == "count" && rr.rc == 6)));
    } else {
      auto rr = member(c, {"remove", added, "--scale-down"});
      REQUIRE_MESSAGE(rr.rc == 0, rr.err);
    }
    check_clean(c, "remove finished");
    CHECK(replicas(c) == "3/3");
    CHECK(etcd_members(c).size() == 3);
  }
  // The last removal's hand-rendered Pod goes with its EtcdMember through
  // the garbage collector, which may not have run yet: wait for it, bounded.
  std::vector<std::string> left = finding_codes(c);
  for (int i = 0; i < 40 && !left.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    left = finding_codes(c);
  }
  INFO("findings left: " << json(left).dump());
  CHECK(left.empty());

  writer.finish();
  INFO("writer errors:\n" << writer.error_log());
  CHECK(writer.puts() > 20);
  CHECK(writer.errors() == 0);
  CHECK(writer.handovers() <= 2);
}
