#include "output/format.h"

#include <doctest/doctest.h>

TEST_CASE("parse_format accepts the four formats") {
  CHECK(*output::parse_format("table") == output::Format::Table);
  CHECK(*output::parse_format("wide") == output::Format::Wide);
  CHECK(*output::parse_format("json") == output::Format::Json);
  CHECK(*output::parse_format("yaml") == output::Format::Yaml);
}

TEST_CASE("text is a synonym of table only where allowed") {
  CHECK(*output::parse_format("text", true) == output::Format::Table);
  auto r = output::parse_format("text", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::Usage);
}

TEST_CASE("an unknown format is a usage error naming the allowed ones") {
  auto r = output::parse_format("xml");
  REQUIRE_FALSE(r.ok());
  CHECK(base::exit_code(r.error().kind) == 128);
  CHECK(r.error().one_line() == "--output: unknown output format \"xml\"; use one of table, wide, json or yaml");
}

TEST_CASE("format_name round-trips") {
  for (auto f : {output::Format::Table, output::Format::Wide, output::Format::Json, output::Format::Yaml}) {
    CHECK(*output::parse_format(output::format_name(f)) == f);
  }
}
