#include "base/duration.h"

#include <doctest/doctest.h>

using namespace std::chrono_literals;

TEST_CASE("parse_duration: kubectl's units, their sums and bare seconds") {
  CHECK(*base::parse_duration("30s") == 30s);
  CHECK(*base::parse_duration("2m") == 2min);
  CHECK(*base::parse_duration("1h30m") == 90min);
  CHECK(*base::parse_duration("500ms") == 500ms);
  CHECK(*base::parse_duration("1.5s") == 1500ms);
  CHECK(*base::parse_duration("0") == 0ms);
  CHECK(*base::parse_duration("45") == 45s);
}

TEST_CASE("parse_duration: anything else is a usage error naming the value and the form") {
  for (const char* bad : {"", "s", "10d", "1h-5m", "ten", "5 s", "1234567890", "99999999999h"}) {
    auto r = base::parse_duration(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == base::ErrorKind::Usage);
    CHECK(r.error().one_line().find("invalid duration \"" + std::string(bad) + "\"") != std::string::npos);
    CHECK(r.error().hint.find("30s") != std::string::npos);
  }
}
