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

TEST_CASE("the *_field forms: absent is the default, another type an error naming the field") {
  const auto c = nlohmann::json::parse(R"({"metadata":{"name":"etcd","labels":{"a/b":"x"}},
    "spec":{"replicas":"3","big":18446744073709551615,"neg":-2,"f":1.5,"storage":{"size":"1Gi"},"list":[1,"two"],
    "flag":true,"txt":"yes"},"status":null})");
  CHECK(*base::string_field(c, "/metadata/name") == "etcd");
  CHECK(*base::string_field(c, "/metadata/labels/" + base::pointer_token("a/b")) == "x");
  CHECK(*base::string_field(c, "/metadata/uid", "none") == "none");
  CHECK(*base::string_field(c, "/status/phase") == "");  // through null: absent
  auto r = base::int_field(c, "/spec/replicas");
  REQUIRE_FALSE(r);
  CHECK(r.error().one_line() == "spec.replicas: expected an integer, found a string");
  CHECK(r.error().kind == base::ErrorKind::Failed);
  CHECK(*base::int_field(c, "/spec/neg") == -2);
  CHECK(base::int_field(c, "/spec/neg", 0, 0).error().one_line() == "spec.neg: expected an integer from 0 to " +
                                                                         std::to_string(LLONG_MAX) + ", found -2");
  CHECK(base::int_field(c, "/spec/big").error().one_line().find("found 18446744073709551615") != std::string::npos);
  CHECK(base::int_field(c, "/spec/f").error().one_line() ==
        "spec.f: expected an integer, found a number with a fraction or exponent");
  CHECK(*base::int_field(c, "/spec/absent", 9) == 9);
  // A step through a value that is not an object names that step.
  CHECK(base::string_field(c, "/spec/storage/size/unit").error().one_line() ==
        "spec.storage.size: expected an object, found a string");
  CHECK(*base::bool_field(c, "/spec/flag"));
  CHECK(base::bool_field(c, "/spec/txt").error().one_line() == "spec.txt: expected a boolean, found a string");
  REQUIRE(*base::object_field(c, "/spec/storage") != nullptr);
  CHECK(*base::object_field(c, "/spec/none") == nullptr);
  CHECK(base::object_field(c, "/spec/list").error().one_line() == "spec.list: expected an object, found an array");
  REQUIRE(*base::array_field(c, "/spec/list") != nullptr);
  CHECK(*base::string_field(c, "/spec/list/1") == "two");
  CHECK(base::string_field(c, "/spec/list/0").error().one_line() == "spec.list.0: expected a string, found an integer");
  CHECK(*base::string_field(c, "/spec/list/7") == "");
  CHECK(base::string_field(c, "/spec/list/x").error().one_line() == "spec.list: expected an object, found an array");
  CHECK(base::array_field(c, "/spec/storage").error().one_line() == "spec.storage: expected an array, found an object");
  CHECK(base::string_field(nlohmann::json(5), "/a").error().one_line() == "the document: expected an object, found an integer");
  CHECK(base::int_at(c, "/spec/big", 4) == 4);
}
