#include "base/rfc3339.h"

#include <doctest/doctest.h>

TEST_CASE("RFC 3339 as Kubernetes writes it: Z, fractions, offsets") {
  CHECK(base::parse_rfc3339_seconds("2030-01-02T03:04:05Z") == std::time_t{1893553445});
  CHECK(base::parse_rfc3339_seconds("2030-01-02T03:04:05.123456Z") == std::time_t{1893553445});
  CHECK(base::parse_rfc3339_seconds("2030-01-02T05:04:05.123+02:00") == std::time_t{1893553445});
  CHECK(base::parse_rfc3339_seconds("2030-01-02T01:34:05-01:30") == std::time_t{1893553445});
  // Beyond 2262 a nanosecond time_point would overflow; seconds do not.
  CHECK(base::parse_rfc3339_seconds("9999-12-31T23:59:59Z") == std::time_t{253402300799});
  auto tp = base::parse_rfc3339("2030-01-02T03:04:05Z");
  REQUIRE(tp.has_value());
  CHECK(std::chrono::system_clock::to_time_t(*tp) == 1893553445);

  CHECK_FALSE(base::parse_rfc3339_seconds("yesterday").has_value());
  CHECK_FALSE(base::parse_rfc3339_seconds("").has_value());
  CHECK_FALSE(base::parse_rfc3339_seconds("2030-01-02T03:04:05 tomorrow").has_value());
  CHECK_FALSE(base::parse_rfc3339_seconds("2030-01-02T03:04:05+0").has_value());
}

TEST_CASE("an instant written back in UTC, as RFC 3339 and as a stamp for names") {
  CHECK(base::format_rfc3339(1893553445) == "2030-01-02T03:04:05Z");
  CHECK(base::format_utc_stamp(1893553445) == "20300102-030405");
  CHECK(base::format_rfc3339(0) == "1970-01-01T00:00:00Z");
  CHECK(base::parse_rfc3339_seconds(base::format_rfc3339(4102444799)) == std::time_t{4102444799});
}

TEST_CASE("times beyond a nanosecond time_point's range are held at its ends (found by fuzz-rfc3339)") {
  using clock = std::chrono::system_clock;
  // The fuzzer's input: 253402300799 s * 10^9 overflowed int64 in from_time_t.
  CHECK(base::parse_rfc3339("9999-12-31T23:59:59Z") == clock::time_point::max());
  CHECK(base::parse_rfc3339("2263-01-01T00:00:00Z") == clock::time_point::max());
  CHECK(base::parse_rfc3339("1000-01-01T00:00:00Z") == clock::time_point::min());
  // Inside the range, to the second.
  CHECK(clock::to_time_t(*base::parse_rfc3339("2262-01-01T00:00:00Z")) == 9214646400);
}
