#include "base/outcome.h"

#include <doctest/doctest.h>

using base::Outcome;

TEST_CASE("all targets succeeded: 0") {
  CHECK(base::aggregate_exit_code({Outcome::Succeeded, Outcome::Succeeded}) == 0);
}

TEST_CASE("no targets: 0") { CHECK(base::aggregate_exit_code({}) == 0); }

TEST_CASE("some succeeded, some blocked or failed: 5") {
  CHECK(base::aggregate_exit_code({Outcome::Succeeded, Outcome::Blocked}) == 5);
  CHECK(base::aggregate_exit_code({Outcome::Failed, Outcome::Succeeded}) == 5);
}

TEST_CASE("every target refused or blocked: 3") {
  CHECK(base::aggregate_exit_code({Outcome::Blocked, Outcome::Blocked}) == 3);
}

TEST_CASE("none succeeded and at least one failed: 1") {
  CHECK(base::aggregate_exit_code({Outcome::Blocked, Outcome::Failed}) == 1);
  CHECK(base::aggregate_exit_code({Outcome::Failed}) == 1);
}

TEST_CASE("an interrupt wins over every other code") {
  CHECK(base::aggregate_exit_code({Outcome::Succeeded}, 130) == 130);
  CHECK(base::aggregate_exit_code({Outcome::Failed, Outcome::Succeeded}, 143) == 143);
}
