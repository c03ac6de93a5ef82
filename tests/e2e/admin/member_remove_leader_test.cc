// member remove of the leader of a native 3-member TLS + auth cluster,
// repeated: the summary reports, for every step, the outcome that step
// returned, and the progress line of each step says the same. The removed
// member is the first endpoint the tool dials, so its MemberRemove reaches
// the member being removed, which stops before it answers: the client asks
// another member again and hears "member not found". That removal is still
// this step's ("done"), never "skipped (already removed)".
#include <algorithm>

#include "member_e2e.h"

using namespace member_e2e;

TEST_CASE("remove the leader, five times: each step's outcome is the one it returned, in the summary and the progress") {
  for (int round = 1; round <= 5; ++round) {
    CAPTURE(round);
    FixtureOptions o;
    o.version = "3.6";
    o.members = 3;
    o.tls = true;
    o.auth = true;
    NativeCluster c(o);
    auto names = c.members();
    std::sort(names.begin(), names.end());
    const std::string target = names.front();  // the first voter endpoint of the tool's session
    auto ml = c.tool({"move-leader", target});
    REQUIRE_MESSAGE(ml.rc == 0, ml.out << ml.err);

    auto r = member(c, {"remove", target, "--scale-down", "-o", "json"});
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.rc == 0);
    const json doc = json::parse(r.out);
    bool removed = false;
    for (const auto& s : doc["steps"]) {
      const std::string step = s["step"], outcome = s["outcome"], detail = s["detail"];
      // The progress line of the step carries the summary's outcome.
      const std::string line = "step " + step + ": " + outcome + (detail.empty() ? "" : " (" + detail + ")");
      CHECK_MESSAGE(r.err.find(line) != std::string::npos, "no progress line \"" << line << "\"");
      if (step == "move-leader") CHECK(outcome == "done");  // it led: leadership moved away first
      if (step == "remove-etcd") {
        CHECK(outcome == "done");
        CHECK(detail.find("removed " + c.id_of(target)) == 0);
        removed = true;
      }
    }
    CHECK(removed);
    CHECK(r.err.find("already removed") == std::string::npos);
    const json left = etcd_members(c);
    CHECK(left.size() == 2);
    for (const auto& m : left) CHECK(m.value("name", "") != target);
    check_clean(c, "after removing the leader, round " + std::to_string(round));
  }
}
