#include "migrate/legacy_webhooks.h"

#include <doctest/doctest.h>

using json = nlohmann::json;

namespace {

json config(const json& namespace_selector, const json& rules = nullptr) {
  json hook = {{"name", "vetcdcluster.kb.io"},
               {"rules", rules.is_null() ? json::parse(R"([{"apiGroups": ["etcd.aenix.io"], "apiVersions": ["v1alpha1"],
                                                          "operations": ["CREATE", "UPDATE"], "resources": ["etcdclusters"]}])")
                                         : rules}};
  if (!namespace_selector.is_null()) hook["namespaceSelector"] = namespace_selector;
  return {{"metadata", {{"name", "hooks"}}}, {"webhooks", json::array({hook})}};
}

json legacy(const std::string& ns, const std::string& name, const json& labels = json::object()) {
  return {{"metadata", {{"namespace", ns}, {"name", name}, {"labels", labels}}}};
}

json in_namespaces(const std::vector<std::string>& names) {
  return {{"matchExpressions", json::array({{{"key", "kubernetes.io/metadata.name"}, {"operator", "In"}, {"values", names}}})}};
}

}  // namespace

TEST_CASE("a webhook without selectors covers every legacy EtcdCluster") {
  CHECK(migrate::webhook_covers(config(nullptr), legacy("a", "etcd")));
  CHECK(migrate::webhook_covers(config(json::object()), legacy("b", "etcd")));
}

TEST_CASE("a namespaceSelector on the namespace's name covers only those namespaces") {
  json c = config(in_namespaces({"a", "b"}));
  CHECK(migrate::webhook_covers(c, legacy("a", "etcd")));
  CHECK(migrate::webhook_covers(c, legacy("b", "etcd")));
  CHECK_FALSE(migrate::webhook_covers(c, legacy("x", "etcd")));
  json by_label = config({{"matchLabels", {{"kubernetes.io/metadata.name", "a"}}}});
  CHECK(migrate::webhook_covers(by_label, legacy("a", "etcd")));
  CHECK_FALSE(migrate::webhook_covers(by_label, legacy("x", "etcd")));
  json not_in = config(json::parse(R"({"matchExpressions": [{"key": "kubernetes.io/metadata.name",
                                        "operator": "NotIn", "values": ["kube-system"]}]})"));
  CHECK(migrate::webhook_covers(not_in, legacy("a", "etcd")));
  CHECK_FALSE(migrate::webhook_covers(not_in, legacy("kube-system", "etcd")));
}

TEST_CASE("other namespace labels are not read: a selector on them covers (rather too much than too little)") {
  json c = config({{"matchLabels", {{"tenant", "true"}}}});
  CHECK(migrate::webhook_covers(c, legacy("a", "etcd")));
  json none = config(json::parse(R"({"matchExpressions": [{"key": "team", "operator": "DoesNotExist"}]})"));
  CHECK(migrate::webhook_covers(none, legacy("a", "etcd")));
}

TEST_CASE("an objectSelector is judged on the EtcdCluster's own labels") {
  json c = config(nullptr);
  c["webhooks"][0]["objectSelector"] = {{"matchLabels", {{"managed", "yes"}}}};
  CHECK(migrate::webhook_covers(c, legacy("a", "etcd", {{"managed", "yes"}})));
  CHECK_FALSE(migrate::webhook_covers(c, legacy("a", "etcd")));
  c["webhooks"][0]["objectSelector"] = json::parse(R"({"matchExpressions": [{"key": "skip", "operator": "Exists"}]})");
  CHECK_FALSE(migrate::webhook_covers(c, legacy("a", "etcd")));
  CHECK(migrate::webhook_covers(c, legacy("a", "etcd", {{"skip", ""}})));
}

TEST_CASE("only rules that send UPDATEs of legacy etcdclusters count") {
  CHECK_FALSE(migrate::webhook_covers(config(nullptr, json::parse(R"([{"apiGroups": ["etcd.aenix.io"],
      "operations": ["CREATE"], "resources": ["etcdclusters"]}])")), legacy("a", "etcd")));
  CHECK_FALSE(migrate::webhook_covers(config(nullptr, json::parse(R"([{"apiGroups": ["etcd.aenix.io"],
      "operations": ["UPDATE"], "resources": ["etcdbackups"]}])")), legacy("a", "etcd")));
  CHECK(migrate::webhook_covers(config(nullptr, json::parse(R"([{"apiGroups": ["*"],
      "operations": ["*"], "resources": ["*"]}])")), legacy("a", "etcd")));
  CHECK_FALSE(migrate::webhook_covers(json::object(), legacy("a", "etcd")));
}

TEST_CASE("removal: every covered cluster adopted, at least one of this run") {
  std::vector<std::pair<std::string, json>> configs = {
      {"validatingwebhookconfigurations/a-hooks", config(in_namespaces({"a"}))},
      {"validatingwebhookconfigurations/ab-hooks", config(in_namespaces({"a", "b"}))},
      {"validatingwebhookconfigurations/x-hooks", config(in_namespaces({"x"}))}};
  std::vector<json> all = {legacy("a", "etcd"), legacy("b", "etcd"), legacy("x", "etcd")};
  auto of_run = [](const json& l) { return l["metadata"]["namespace"] == "a"; };
  auto adopted = [](const json& l) { return l["metadata"]["namespace"] != "b"; };
  auto d = migrate::decide_webhook_removal(configs, all, of_run, adopted);
  CHECK(d.remove == std::vector<std::string>{"validatingwebhookconfigurations/a-hooks"});
  CHECK(d.keep == std::vector<std::string>{"validatingwebhookconfigurations/ab-hooks"});
  CHECK(d.reason == "kept: validatingwebhookconfigurations/ab-hooks also covers the legacy EtcdCluster b/etcd, "
                    "which is not adopted");
  // x-hooks covers no cluster of this run: neither removed nor reported.

  auto all_adopted = migrate::decide_webhook_removal(configs, all, of_run, [](const json&) { return true; });
  CHECK(all_adopted.remove.size() == 2);
  CHECK(all_adopted.keep.empty());
  CHECK(all_adopted.reason.empty());
}
