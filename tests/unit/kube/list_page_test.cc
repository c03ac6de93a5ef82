#include "kube/list_page.h"

#include <doctest/doctest.h>

namespace {
using nlohmann::json;
// Made when used: kube::resources::pods is a global of another file, not
// yet made while this file's globals are (the clang build showed it).
kube::RequestContext list_pods() { return {"list", kube::resources::pods, "x", "", ""}; }
}  // namespace

TEST_CASE("an empty body is an empty object; a body that is not JSON names the request") {
  auto empty = kube::parse_answer("", list_pods());
  REQUIRE(empty.ok());
  CHECK(*empty == json::object());
  auto bad = kube::parse_answer("<html>bad gateway</html>", list_pods());
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "cannot list pods in namespace \"x\": the server's answer is not JSON");
}

TEST_CASE("pages are put together in order, the continue token read and dropped at the end") {
  json all;
  auto p1 = kube::add_list_page(all,
      json::parse(R"({"kind":"PodList","metadata":{"resourceVersion":"7","continue":"abc"},"items":[{"n":1},{"n":2}]})"),
      list_pods());
  REQUIRE(p1.ok());
  CHECK(*p1 == "abc");
  auto p2 = kube::add_list_page(all, json::parse(R"({"kind":"PodList","metadata":{},"items":[{"n":3}]})"), list_pods());
  REQUIRE(p2.ok());
  CHECK(*p2 == "");
  kube::end_list(all);
  CHECK(all == json::parse(R"({"kind":"PodList","metadata":{"resourceVersion":"7"},"items":[{"n":1},{"n":2},{"n":3}]})"));
}

TEST_CASE("a page without items (or with items null) gives an empty list") {
  json all;
  auto p = kube::add_list_page(all, json::parse(R"({"kind":"PodList","items":null,"metadata":{"continue":5}})"), list_pods());
  REQUIRE(p.ok());
  CHECK(*p == "");  // a continue token that is not a string is no token
  CHECK(all["items"] == json::array());
}

TEST_CASE("a page that is not an object is refused, not thrown on (a proxy's answer)") {
  for (const char* body : {"[]", "\"x\"", "42", "null", "true"}) {
    json all;
    auto p = kube::add_list_page(all, json::parse(body), list_pods());
    REQUIRE_FALSE(p.ok());
    CHECK(p.error().message == "cannot list pods in namespace \"x\": the server's answer is not a List object");
  }
}
