#include "migrate/verdict.h"

#include <doctest/doctest.h>

TEST_CASE("verdicts sort as the plan prints them") {
  std::vector<migrate::Verdict> v = {{"N3", ""}, {"W13", ""}, {"B10", "b"}, {"S1", ""}, {"W3", ""},
                                     {"B2", ""}, {"B10", "a"}, {"N10", ""}, {"R3", ""}, {"N1", ""}};
  migrate::sort_verdicts(v);
  std::vector<std::string> ids;
  for (const auto& x : v) ids.push_back(x.id + x.message);
  CHECK(ids == std::vector<std::string>{"B2", "B10b", "B10a", "R3", "S1", "W3", "W13", "N1", "N3", "N10"});
}

TEST_CASE("severity follows the id's letter") {
  CHECK(migrate::Verdict{"B1", ""}.severity() == migrate::Severity::Blocker);
  CHECK(migrate::Verdict{"R1", ""}.severity() == migrate::Severity::Blocker);
  CHECK(migrate::Verdict{"S1", ""}.severity() == migrate::Severity::Security);
  CHECK(migrate::Verdict{"W20", ""}.severity() == migrate::Severity::Warning);
  CHECK(migrate::Verdict{"N12", ""}.severity() == migrate::Severity::Note);
  CHECK(migrate::has_blocker({{"N1", ""}, {"B16", ""}}));
  CHECK_FALSE(migrate::has_blocker({{"W1", ""}, {"S1", ""}}));
}

TEST_CASE("json form has stable fields") {
  auto j = migrate::to_json(migrate::Verdict{"W7", "dropped"});
  CHECK(j.dump() == R"({"id":"W7","severity":"warning","message":"dropped"})");
}
