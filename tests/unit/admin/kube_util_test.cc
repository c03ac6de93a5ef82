#include "admin/kube_util.h"

#include <doctest/doctest.h>

using nlohmann::json;

TEST_CASE("guarded adds the object's resourceVersion to the patch, keeping the patch's own metadata") {
  json obj = {{"metadata", {{"name", "m"}, {"resourceVersion", "42"}}}};
  CHECK(admin::guarded(obj, {{"spec", {{"replicas", 4}}}}) ==
        json{{"spec", {{"replicas", 4}}}, {"metadata", {{"resourceVersion", "42"}}}});
  CHECK(admin::guarded(obj, {{"metadata", {{"finalizers", json::array()}}}}) ==
        json{{"metadata", {{"finalizers", json::array()}, {"resourceVersion", "42"}}}});
  // An object without one: the patch carries an empty resourceVersion.
  CHECK(admin::guarded(json::object(), json::object())["metadata"]["resourceVersion"] == "");
}
