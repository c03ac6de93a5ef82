#include "admin/member_step.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using admin::MemberStep;

TEST_CASE("every member step has its own stable name, and the name maps back to it") {
  std::set<std::string> seen;
  for (int i = 0; i <= static_cast<int>(MemberStep::UnmarkRoll); ++i) {
    auto s = static_cast<MemberStep>(i);
    std::string name = admin::step_name(s);
    CHECK(name != "unknown");
    CHECK(seen.insert(name).second);
    CHECK(admin::parse_member_step(name) == s);
  }
  CHECK(seen.size() == 26);
}

TEST_CASE("the names the crash tests kill after") {
  CHECK(std::string(admin::step_name(MemberStep::CreateMember)) == "create-member");
  CHECK(std::string(admin::step_name(MemberStep::RemoveEtcd)) == "remove-etcd");
  CHECK(std::string(admin::step_name(MemberStep::MarkRoll)) == "mark-roll");
  CHECK(!admin::parse_member_step("no-such-step"));
}
