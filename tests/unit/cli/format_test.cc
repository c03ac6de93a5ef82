#include "cli/format.h"

#include <doctest/doctest.h>

TEST_CASE("parse_format accepts the four formats") {
  CHECK(*cli::parse_format("table") == cli::Format::Table);
  CHECK(*cli::parse_format("wide") == cli::Format::Wide);
  CHECK(*cli::parse_format("json") == cli::Format::Json);
  CHECK(*cli::parse_format("yaml") == cli::Format::Yaml);
}

TEST_CASE("text is a synonym of table only where allowed") {
  CHECK(*cli::parse_format("text", true) == cli::Format::Table);
  auto r = cli::parse_format("text", false);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == cli::ErrorKind::Usage);
}

TEST_CASE("an unknown format is a usage error naming the allowed ones") {
  auto r = cli::parse_format("xml");
  REQUIRE_FALSE(r.ok());
  CHECK(cli::exit_code(r.error().kind) == 128);
  CHECK(r.error().one_line() == "--output: unknown output format \"xml\"; use one of table, wide, json or yaml");
}

TEST_CASE("format_name round-trips") {
  for (auto f : {cli::Format::Table, cli::Format::Wide, cli::Format::Json, cli::Format::Yaml}) {
    CHECK(*cli::parse_format(cli::format_name(f)) == f);
  }
}
