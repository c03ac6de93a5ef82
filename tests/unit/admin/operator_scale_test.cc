#include "admin/operator_scale.h"

#include <doctest/doctest.h>

#include "operator/names.h"

TEST_CASE("operator_coords: NS/NAME, a bare NAME in the default namespace, empty for the default Deployment") {
  using Coords = std::pair<std::string, std::string>;
  CHECK(admin::operator_coords("ops/etcd-operator") == Coords{"ops", "etcd-operator"});
  CHECK(admin::operator_coords("my-operator") == Coords{std::string(op::kDefaultControllerNamespace), "my-operator"});
  const auto d = admin::operator_coords("");
  CHECK(d.first + "/" + d.second == std::string(op::kDefaultNewController));
}
