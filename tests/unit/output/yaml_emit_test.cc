#include "output/yaml_emit.h"

#include <doctest/doctest.h>
#include <yaml-cpp/yaml.h>

using json = nlohmann::ordered_json;

namespace {

// Converts what yaml-cpp read back into JSON, typing scalars the way a YAML
// 1.2 core-schema reader would, so a round trip proves the quoting is right.
json from_node(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
      return nullptr;
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& item : n) a.push_back(from_node(item));
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = from_node(kv.second);
      return o;
    }
    default: {
      std::string s = n.Scalar();
      if (n.Tag() == "!") return s;  // quoted: always a string
      if (s == "true") return true;
      if (s == "false") return false;
      if (s == "null" || s == "~") return nullptr;
      try {
        size_t pos = 0;
        long long v = std::stoll(s, &pos);
        if (pos == s.size()) return v;
        double d = std::stod(s, &pos);
        if (pos == s.size()) return d;
      } catch (...) {
      }
      return s;
    }
  }
}

}  // namespace

TEST_CASE("maps and sequences in kubectl's layout") {
  json doc = json::parse(R"({"apiVersion": "v1", "kind": "List",
    "items": [{"name": "a", "ports": [2379, 2380]}, {"name": "b", "labels": {}}],
    "empty": []})");
  CHECK(output::to_yaml(doc) ==
        "apiVersion: v1\n"
        "kind: List\n"
        "items:\n"
        "- name: a\n"
        "  ports:\n"
        "  - 2379\n"
        "  - 2380\n"
        "- name: b\n"
        "  labels: {}\n"
        "empty: []\n");
}

TEST_CASE("strings that would read as other types are quoted") {
  for (const char* s : {"true", "False", "yes", "NO", "on", "off", "y", "null", "~", "123", "0123", "1e3",
                        "0x1F", "1_000", "12:30", ".inf", "-.5", "2024-01-02", "2024-01-02T03:04:05Z", ""}) {
    CAPTURE(s);
    CHECK_FALSE(output::yaml_plain_safe(s));
  }
}

TEST_CASE("strings with indicators or special spacing are quoted") {
  for (const char* s : {"- x", "*ref", "&a", "!tag", "a: b", "a #c", "key:", " lead", "trail ", "[x]", "{x}",
                        "|", ">", "%x", "@x", "`x", "'x", "\"x", "line\nbreak", "tab\there"}) {
    CAPTURE(s);
    CHECK_FALSE(output::yaml_plain_safe(s));
  }
}

TEST_CASE("ordinary strings stay plain") {
  for (const char* s : {"etcd-0", "https://etcd-0.etcd-headless.ns.svc:2380", "8e9e05c52164694d", "a:b",
                        "a#b", "v3.5.21", "quay.io/coreos/etcd:v3.5.21", "5m"}) {
    CAPTURE(s);
    CHECK(output::yaml_plain_safe(s));
  }
}

TEST_CASE("round trip through a YAML reader gives back the same document") {
  json doc = json::parse(R"({
    "a": "true", "b": true, "c": "123", "d": 123, "e": 1.5, "f": "1.5", "g": null, "h": "null",
    "i": "multi\nline", "j": "quote\"d", "k": ["x", "-", "", 0, false],
    "nested": {"deeper": [{"x": {"y": [1, [2, 3]]}}]},
    "id": "0000000000000001", "empty": {}, "unicode": "grüße"
  })");
  auto yaml = output::to_yaml(doc);
  CAPTURE(yaml);
  CHECK(from_node(YAML::Load(yaml)) == doc);
}

TEST_CASE("top-level scalars and empty containers") {
  CHECK(output::to_yaml(json("x")) == "x\n");
  CHECK(output::to_yaml(json::array()) == "[]\n");
  CHECK(output::to_yaml(json::object()) == "{}\n");
  CHECK(output::to_yaml(json(nullptr)) == "null\n");
}
