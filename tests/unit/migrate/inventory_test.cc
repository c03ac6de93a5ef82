#include "migrate/inventory.h"

#include <doctest/doctest.h>

using nlohmann::json;

TEST_CASE("find_object matches namespace and name, and skips what lacks them") {
  std::vector<json> objects = {
      json::parse(R"({"metadata": {"name": "etcd-0", "namespace": "a"}})"),
      json::parse(R"({"metadata": {"name": "etcd-0", "namespace": "b"}})"),
      json::parse(R"({"metadata": {"name": 7, "namespace": "b"}})"),
      json::parse(R"({"metadata": null})"),
      json::parse(R"("not an object")"),
      json::parse(R"({"metadata": {"name": "etcd-1"}})"),
  };
  const json* b = migrate::find_object(objects, "b", "etcd-0");
  REQUIRE(b != nullptr);
  CHECK(b == &objects[1]);
  CHECK(migrate::find_object(objects, "a", "etcd-0") == &objects[0]);
  CHECK(migrate::find_object(objects, "c", "etcd-0") == nullptr);
  CHECK(migrate::find_object(objects, "", "etcd-1") == &objects[5]);  // no namespace reads as ""
  CHECK(migrate::object_name(objects[2]).empty());
  CHECK(migrate::object_namespace(objects[3]).empty());
  CHECK(migrate::object_name(objects[4]).empty());
  CHECK(migrate::object_name(objects[1]) == "etcd-0");
  CHECK(migrate::object_namespace(objects[1]) == "b");
}
