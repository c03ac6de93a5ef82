#include "operator/watch.h"

#include <doctest/doctest.h>

using nlohmann::json;
using v = std::vector<std::string>;

TEST_CASE("WATCH_NAMESPACE: a comma list, spaces trimmed; empty or absent means every namespace") {
  CHECK(op::watched_namespaces(json{{"env", {{{"name", "WATCH_NAMESPACE"}, {"value", "a, b,,c "}}}}}) ==
        v{"a", "b", "c"});
  CHECK(op::watched_namespaces(json{{"env", {{{"name", "WATCH_NAMESPACE"}, {"value", ""}}}}}).empty());
  CHECK(op::watched_namespaces(json::object()).empty());
}

TEST_CASE("an env from elsewhere cannot be known: every namespace") {
  json c = {{"env", {{{"name", "WATCH_NAMESPACE"}, {"valueFrom", {{"configMapKeyRef", {{"name", "x"}}}}}}}}};
  CHECK(op::watched_namespaces(c).empty());
}

TEST_CASE("--watch-namespace wins over the env, in every form Go's flag package takes") {
  json env = {{"name", "WATCH_NAMESPACE"}, {"value", "from-env"}};
  CHECK(op::watched_namespaces(json{{"env", {env}}, {"args", {"--leader-elect", "--watch-namespace=a,b"}}}) ==
        v{"a", "b"});
  CHECK(op::watched_namespaces(json{{"env", {env}}, {"args", {"-watch-namespace", "c"}}}) == v{"c"});
  CHECK(op::watched_namespaces(json{{"command", {"/manager", "--watch-namespace", "d"}}}) == v{"d"});
  CHECK(op::watched_namespaces(json{{"env", {env}}, {"args", {"--watch-namespace="}}}).empty());
  // A flag without its value is not one.
  CHECK(op::watched_namespaces(json{{"env", {env}}, {"args", {"--watch-namespace"}}}) == v{"from-env"});
}

TEST_CASE("watches: an empty list covers everything") {
  CHECK(op::watches({}, "x"));
  CHECK(op::watches({"a", "x"}, "x"));
  CHECK_FALSE(op::watches({"a"}, "x"));
}
