#include "operator/quantity.h"

#include <doctest/doctest.h>

using op::canonical_quantity;

TEST_CASE("binary quantities take the largest whole binary suffix") {
  CHECK(canonical_quantity("1024Mi") == "1Gi");
  CHECK(canonical_quantity("10Gi") == "10Gi");
  CHECK(canonical_quantity("1536Mi") == "1536Mi");
  CHECK(canonical_quantity("1.5Gi") == "1536Mi");
  CHECK(canonical_quantity("4096Ki") == "4Mi");
}

TEST_CASE("small or fractional binary values fall back to decimal") {
  CHECK(canonical_quantity("0.5Ki") == "512");
  CHECK(canonical_quantity("1Ki") == "1Ki");
}

TEST_CASE("decimal quantities keep a decimal suffix") {
  CHECK(canonical_quantity("1000M") == "1G");
  CHECK(canonical_quantity("0.5") == "500m");
  CHECK(canonical_quantity("100m") == "100m");
  CHECK(canonical_quantity("2") == "2");
  CHECK(canonical_quantity("2048") == "2048");
  CHECK(canonical_quantity("1500k") == "1500k");
  CHECK(canonical_quantity("0") == "0");
}

TEST_CASE("exponent quantities stay in exponent form") {
  CHECK(canonical_quantity("1e3") == "1e3");
  CHECK(canonical_quantity("1000e3") == "1e6");
}

TEST_CASE("not quantities") {
  CHECK_FALSE(canonical_quantity("").has_value());
  CHECK_FALSE(canonical_quantity("Gi").has_value());
  CHECK_FALSE(canonical_quantity("10GB").has_value());
  CHECK_FALSE(canonical_quantity("1.2.3").has_value());
  CHECK_FALSE(canonical_quantity("10 Gi").has_value());
}

TEST_CASE("quantities past 1.7e20 are refused, not wrapped around; canonical forms parse back (found by fuzz-quantity)") {
  // The fuzzer's first input: 9.8e17 Ti is 10^39 nano units, past 128 bits.
  CHECK_FALSE(op::parse_quantity("982233720368547703Ti").has_value());
  CHECK_FALSE(op::parse_quantity("999999999999999999999E").has_value());
  CHECK_FALSE(op::parse_quantity("100000000000000000000e18").has_value());
  CHECK_FALSE(op::parse_quantity("1000000Ei").has_value());
  // Its second: the canonical form (in micro units) has 25 digits, which
  // the parser refused; it parses back now.
  auto q = op::parse_quantity("9223372036854775800.000700000");
  REQUIRE(q.has_value());
  CHECK(q->canonical() == "9223372036854775800000700u");
  auto again = op::parse_quantity(q->canonical());
  REQUIRE(again.has_value());
  CHECK(again->nano == q->nano);
  // The largest held keep their value.
  CHECK(canonical_quantity("100000Pi") == "100000Pi");
  CHECK(canonical_quantity("100000000000000000000") == "100E");
}

TEST_CASE("whole values for byte arithmetic") {
  CHECK(op::parse_quantity("4Gi")->ceil_int() == 4294967296LL);
  CHECK(op::parse_quantity("10Gi")->ceil_int() == 10737418240LL);
  CHECK(op::parse_quantity("1.5")->ceil_int() == 2);
}
