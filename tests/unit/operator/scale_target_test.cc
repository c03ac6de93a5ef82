#include "operator/scale_target.h"

#include <doctest/doctest.h>

#include "operator/names.h"

TEST_CASE("the scale-target annotation: written and read back; a malformed value is none") {
  const op::ScaleTarget t{4, {"c-aaaaa", "c-bbbbb", "c-ccccc"}};
  CHECK(op::scale_target_value(t) == "4:c-aaaaa,c-bbbbb,c-ccccc");
  auto back = op::parse_scale_target(op::scale_target_value(t));
  REQUIRE(back.has_value());
  CHECK(back->replicas == 4);
  CHECK(back->before == t.before);
  auto none_before = op::parse_scale_target("1:");
  REQUIRE(none_before.has_value());
  CHECK(none_before->before.empty());
  for (const char* bad : {"", "4", ":a", "x:a", "4x:a", "0:a", "-1:a", "4:a,,b", "4:a,", "99999999999999999999:a"}) {
    CHECK_FALSE_MESSAGE(op::parse_scale_target(bad).has_value(), bad);
  }
  nlohmann::json cluster = {{"metadata", {{"annotations", {{std::string(op::kAnnScaleTarget), "5:m"}}}}}};
  REQUIRE(op::scale_target(cluster).has_value());
  CHECK(op::scale_target(cluster)->replicas == 5);
  CHECK_FALSE(op::scale_target(nlohmann::json::object()).has_value());
}
