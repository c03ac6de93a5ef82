#include "output/render.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

#include "support.h"

using json = nlohmann::ordered_json;

namespace {

json members() {
  return json::parse(R"({"items": [
    {"name": "c-0", "id": "8e9e05c52164694d", "status": {"dbSize": 25000000, "leader": true}, "took": 0.0123},
    {"name": "c-1", "id": "00000000000000ff", "status": {"dbSize": 1536, "leader": false}, "took": 2.5, "error": null}
  ]})");
}

output::View member_view() {
  return output::View{{{"NAME", "name"},
                    {"ID", "id"},
                    {"LEADER", "status.leader"},
                    {"DB SIZE", "status.dbSize", output::Cell::Bytes},
                    {"TOOK", "took", output::Cell::Seconds, true},
                    {"ERROR", "error", output::Cell::Text, true}},
                   "items",
                   "no members",
                   {}};
}

}  // namespace

TEST_CASE("table shows the view's columns from the document's fields") {
  CHECK(output::render(members(), member_view(), output::Format::Table) ==
        "NAME   ID                 LEADER   DB SIZE\n"
        "c-0    8e9e05c52164694d   true     25 MB\n"
        "c-1    00000000000000ff   false    1.5 kB\n");
}

TEST_CASE("wide adds the wide-only columns; missing and null fields show '-'") {
  CHECK(output::render(members(), member_view(), output::Format::Wide) ==
        "NAME   ID                 LEADER   DB SIZE   TOOK    ERROR\n"
        "c-0    8e9e05c52164694d   true     25 MB     12ms    -\n"
        "c-1    00000000000000ff   false    1.5 kB    2.50s   -\n");
}

TEST_CASE("json carries the raw values of the same document") {
  auto out = output::render(members(), member_view(), output::Format::Json);
  auto back = json::parse(out);
  CHECK(back == members());
  CHECK(back["items"][0]["status"]["dbSize"].get<long>() == 25000000);
}

TEST_CASE("yaml parses back to the same document") {
  auto out = output::render(members(), member_view(), output::Format::Yaml);
  YAML::Node n = YAML::Load(out);
  CHECK(n["items"][0]["id"].as<std::string>() == "8e9e05c52164694d");
  CHECK(n["items"][1]["id"].as<std::string>() == "00000000000000ff");
  CHECK(n["items"][0]["status"]["dbSize"].as<long>() == 25000000);
  CHECK(n["items"][1]["error"].IsNull());
}

TEST_CASE("an empty row list prints the view's empty message, json an empty list") {
  json doc = {{"items", json::array()}};
  CHECK(output::render(doc, member_view(), output::Format::Table) == "no members\n");
  CHECK(output::render(doc, member_view(), output::Format::Json) == "{\n  \"items\": []\n}\n");
}

TEST_CASE("a single object is drawn as one row") {
  json doc = {{"name", "x"}, {"id", "1"}};
  output::View v{{{"NAME", "name"}, {"ID", "id"}}, "", "", {}};
  CHECK(output::render(doc, v, output::Format::Table) == "NAME   ID\nx      1\n");
}

TEST_CASE("no_headers drops the header line") {
  output::RenderOptions o;
  o.no_headers = true;
  CHECK(output::render(members(), member_view(), output::Format::Table, o) ==
        "c-0    8e9e05c52164694d   true     25 MB\n"
        "c-1    00000000000000ff   false    1.5 kB\n");
}

TEST_CASE("a prose view draws the table form from the same document") {
  output::View v;
  v.text = [](const json& d) { return "hello " + d["who"].get<std::string>() + "\n"; };
  json doc = {{"who", "world"}};
  CHECK(output::render(doc, v, output::Format::Table) == "hello world\n");
  CHECK(json::parse(output::render(doc, v, output::Format::Json)) == doc);
}

TEST_CASE("ages are relative to the given now") {
  json doc = {{"t", "2026-01-01T00:00:00Z"}};
  output::View v{{{"AGE", "t", output::Cell::Age}}, "", "", {}};
  output::RenderOptions o;
  o.now = unit_test::utc(2026, 1, 1, 3);
  CHECK(output::render(doc, v, output::Format::Table, o) == "AGE\n3h\n");
}

TEST_CASE("human_bytes uses SI units like etcdctl") {
  CHECK(output::human_bytes(0) == "0 B");
  CHECK(output::human_bytes(999) == "999 B");
  CHECK(output::human_bytes(20480) == "20 kB");
  CHECK(output::human_bytes(2.5e9) == "2.5 GB");
}

TEST_CASE("human_seconds picks a readable unit") {
  CHECK(output::human_seconds(0.0005) == "500µs");
  CHECK(output::human_seconds(0.25) == "250ms");
  CHECK(output::human_seconds(5) == "5.00s");
  CHECK(output::human_seconds(600) == "10m");
}

TEST_CASE("lookup follows dotted paths and stops at non-objects") {
  json doc = {{"a", {{"b", {{"c", 3}}}}}, {"s", "x"}};
  REQUIRE(output::lookup(doc, "a.b.c") != nullptr);
  CHECK(*output::lookup(doc, "a.b.c") == 3);
  CHECK(output::lookup(doc, "a.x") == nullptr);
  CHECK(output::lookup(doc, "s.y") == nullptr);
}
