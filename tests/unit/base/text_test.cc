#include "base/text.h"

#include <doctest/doctest.h>

using Strings = std::vector<std::string>;

TEST_CASE("trim drops spaces, tabs, CR and LF at both ends only") {
  CHECK(base::trim("  a b\t\r\n") == "a b");
  CHECK(base::trim("\n\tx") == "x");
  CHECK(base::trim(" \r\n\t ").empty());
  CHECK(base::trim("a\nb") == "a\nb");
}

TEST_CASE("to_lower folds ASCII only") {
  CHECK(base::to_lower("Sec-WebSocket-Accept") == "sec-websocket-accept");
  CHECK(base::to_lower("*.ETCD.Svc") == "*.etcd.svc");
  CHECK(base::to_lower("\xc3\x89") == "\xc3\x89");
}

TEST_CASE("split drops empty pieces unless asked to keep them") {
  CHECK(base::split("a,b,,c,", ',') == Strings{"a", "b", "c"});
  CHECK(base::split("", ',').empty());
  CHECK(base::split("a,b,,c,", ',', true) == Strings{"a", "b", "", "c", ""});
  CHECK(base::split("x", ':') == Strings{"x"});
}

TEST_CASE("join puts the separator between parts, also around empty ones") {
  CHECK(base::join({"a", "b", "c"}, ", ") == "a, b, c");
  CHECK(base::join({}, ":").empty());
  CHECK(base::join({"", "b"}, ":") == ":b");
  CHECK(base::join({"a", ""}, ":") == "a:");
}

TEST_CASE("quoted puts double quotes around a name, empty included") {
  CHECK(base::quoted("etcd-0") == "\"etcd-0\"");
  CHECK(base::quoted("") == "\"\"");
  CHECK(base::quoted("ns/name") == "\"ns/name\"");
}
