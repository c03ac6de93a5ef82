#include "base/json_at.h"

#include <doctest/doctest.h>

TEST_CASE("string_at and find_at: absent, null and other types read as nothing") {
  const auto pod = nlohmann::json::parse(R"({"metadata": {"name": "etcd-0", "uid": null,
    "labels": {"app.kubernetes.io/name": "etcd"}}, "spec": {"replicas": 3}})");
  CHECK(base::string_at(pod, "/metadata/name") == "etcd-0");
  CHECK(base::string_at(pod, "/metadata/labels/app.kubernetes.io~1name") == "etcd");
  CHECK(base::string_at(pod, "/metadata/uid").empty());
  CHECK(base::string_at(pod, "/spec/replicas").empty());
  CHECK(base::string_at(pod, "/status/phase").empty());
  CHECK(base::find_at(pod, "/metadata/uid") == nullptr);
  CHECK(base::find_at(pod, "/nothing/here") == nullptr);
  REQUIRE(base::find_at(pod, "/spec/replicas") != nullptr);
  CHECK(*base::find_at(pod, "/spec/replicas") == 3);
  // A pointer through a non-object reads as absent rather than throwing.
  CHECK(base::find_at(pod, "/spec/replicas/x") == nullptr);
}

TEST_CASE("bool_at: true only for a JSON true") {
  const auto m = nlohmann::json::parse(R"({"status": {"isVoter": true, "learner": false, "ready": "true"}})");
  CHECK(base::bool_at(m, "/status/isVoter"));
  CHECK_FALSE(base::bool_at(m, "/status/learner"));
  CHECK_FALSE(base::bool_at(m, "/status/ready"));
  CHECK_FALSE(base::bool_at(m, "/status/absent"));
}

TEST_CASE("int_at: an integer, else the value for absent") {
  const auto c = nlohmann::json::parse(R"({"spec":{"replicas":5,"name":"x","size":1.5},"status":{"observed":null}})");
  CHECK(base::int_at(c, "/spec/replicas") == 5);
  CHECK(base::int_at(c, "/spec/name", 3) == 3);  // a string is not an integer
  CHECK(base::int_at(c, "/spec/size", -1) == -1);
  CHECK(base::int_at(c, "/status/observed/replicas") == 0);
  CHECK(base::int_at(c, "/status/observed", 7) == 7);
}
