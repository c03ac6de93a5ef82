#include <doctest/doctest.h>

#include "migrate/gate.h"

using json = nlohmann::json;

TEST_CASE("selector_matches: matchLabels and every matchExpressions operator, as the apiserver selects") {
  const json labels = {{"app", "op"}, {"tier", "control"}};
  CHECK(migrate::selector_matches({{"matchLabels", {{"app", "op"}}}}, labels));
  CHECK_FALSE(migrate::selector_matches({{"matchLabels", {{"app", "op"}, {"x", "y"}}}}, labels));
  CHECK_FALSE(migrate::selector_matches({{"matchLabels", {{"app", "other"}}}}, labels));
  auto expr = [](const std::string& key, const std::string& op, json values) {
    return json{{"matchExpressions", json::array({{{"key", key}, {"operator", op}, {"values", values}}})}};
  };
  CHECK(migrate::selector_matches(expr("tier", "In", {"control", "data"}), labels));
  CHECK_FALSE(migrate::selector_matches(expr("tier", "In", {"data"}), labels));
  CHECK_FALSE(migrate::selector_matches(expr("missing", "In", {"data"}), labels));
  CHECK(migrate::selector_matches(expr("tier", "NotIn", {"data"}), labels));
  CHECK(migrate::selector_matches(expr("missing", "NotIn", {"data"}), labels));
  CHECK_FALSE(migrate::selector_matches(expr("tier", "NotIn", {"control"}), labels));
  CHECK(migrate::selector_matches(expr("app", "Exists", json::array()), labels));
  CHECK_FALSE(migrate::selector_matches(expr("missing", "Exists", json::array()), labels));
  CHECK(migrate::selector_matches(expr("missing", "DoesNotExist", json::array()), labels));
  CHECK_FALSE(migrate::selector_matches(expr("app", "DoesNotExist", json::array()), labels));
  json both = expr("tier", "In", {"control"});
  both["matchLabels"] = {{"app", "other"}};
  CHECK_FALSE(migrate::selector_matches(both, labels));
}

TEST_CASE("selector_matches: an empty or absent selector selects nothing; a pod without labels only by absence") {
  CHECK_FALSE(migrate::selector_matches(json(), {{"app", "op"}}));
  CHECK_FALSE(migrate::selector_matches(json::object(), {{"app", "op"}}));
  CHECK_FALSE(migrate::selector_matches({{"matchLabels", {{"app", "op"}}}}, json()));
  CHECK(migrate::selector_matches(
      {{"matchExpressions", json::array({{{"key", "app"}, {"operator", "DoesNotExist"}}})}}, json()));
}

TEST_CASE("judge_operator_image_pod: an operator's pod is a finding; the snapshot agent's is none") {
  const std::set<std::string> repos = {"ghcr.io/cozystack/etcd-operator"};
  auto pod = [](const std::string& container, const std::string& image) {
    return nlohmann::json{{"metadata", {{"namespace", "t"}, {"name", "p"}}},
                          {"spec", {{"containers", {{{"name", container}, {"image", image}}}}}}};
  };
  auto manager = migrate::judge_operator_image_pod(pod("manager", "ghcr.io/cozystack/etcd-operator:v1"), repos, "");
  CHECK(manager.kind == migrate::PodUse::Finding);
  CHECK(manager.text == "pod t/p runs the operator image ghcr.io/cozystack/etcd-operator:v1: stop it before adopting");
  // A backup Job's agent whose image cannot be pulled, still there while its Job is deleted.
  auto agent = migrate::judge_operator_image_pod(pod("snapshot-agent", "ghcr.io/cozystack/etcd-operator:x"), repos, "");
  CHECK(agent.kind == migrate::PodUse::None);
  CHECK(migrate::judge_operator_image_pod(pod("manager", "quay.io/coreos/etcd:v3.5.21"), repos, "").kind ==
        migrate::PodUse::None);
  auto elsewhere = pod("manager", "ghcr.io/cozystack/etcd-operator:v1");
  elsewhere["spec"]["containers"][0]["env"] = {{{"name", "WATCH_NAMESPACE"}, {"value", "other"}}};
  CHECK(migrate::judge_operator_image_pod(elsewhere, repos, "t").kind == migrate::PodUse::Note);
}
