// kube::ReadOnce against the real apiserver: each name is asked once, a
// NotFound answer is kept as the same error, a later change on the server
// is not seen by the same reader, and a new reader reads again.
#include <doctest/doctest.h>

#include "helpers.h"
#include "kube/read_once.h"
#include "kube/status_error.h"

using nlohmann::json;
namespace r = kube::resources;

TEST_CASE("ReadOnce asks the apiserver once per name, NotFound included") {
  e2e::Namespace ns("kube-read-once");
  auto c = kube_e2e::admin();
  REQUIRE(c->create(r::configmaps, ns.name(), kube_e2e::configmap("a", {{"k", "1"}})).ok());
  kube::ReadOnce reads(*c, r::configmaps, ns.name());

  auto before = c->stats().requests;
  auto first = reads.get("a");
  REQUIRE_MESSAGE(first.ok(), first.error().one_line());
  CHECK((*first)["data"]["k"] == "1");
  auto missing = reads.get("nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(kube::is_not_found(missing.error()));
  CHECK(c->stats().requests - before == 2);

  // Changed on the server since: the kept answer is what this reader saw.
  json changed = *first;
  changed["data"]["k"] = "2";
  REQUIRE(c->replace(r::configmaps, ns.name(), changed).ok());
  before = c->stats().requests;
  auto second = reads.get("a");
  REQUIRE(second.ok());
  CHECK((*second)["data"]["k"] == "1");
  auto missing_again = reads.get("nope");
  REQUIRE_FALSE(missing_again.ok());
  CHECK(missing_again.error().one_line() == missing.error().one_line());
  CHECK(c->stats().requests == before);

  // A reader of its own reads again.
  kube::ReadOnce fresh(*c, r::configmaps, ns.name());
  auto now = fresh.get("a");
  REQUIRE(now.ok());
  CHECK((*now)["data"]["k"] == "2");
}
