// Blocked dry-run plans against real legacy fixtures: each blocker found from
// the live state or judged by the real apiserver (docs/rules.md#server-side-dry-run),
// all of a cluster's blockers at once (docs/rules.md#smaller-gaps-closed), exit 3, and nothing changed.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "migrate_e2e.h"

using json = nlohmann::json;

namespace {

// Runs the dry-run, checks exit 3, the expected ids, and that nothing changed.
json blocked_plan(const e2e::LegacyFixture& f, const std::vector<std::string>& expected,
                  const std::vector<std::string>& extra = {}) {
  auto before = e2e::fingerprint(f);
  long long revision = f.etcd_revision();
  int rc = -1;
  json doc = e2e::adopt_plan(f, extra, rc);
  json plan = e2e::cluster_plan(doc, f.ns(), f.name());
  REQUIRE(plan.is_object());
  INFO("verdicts: " << plan["verdicts"].dump());
  CHECK(rc == 3);
  CHECK(plan["action"] == "Error");
  CHECK_FALSE(plan.contains("objects"));
  for (const auto& id : expected) CHECK_MESSAGE(e2e::has_verdict(plan, id), "missing " << id);
  CHECK(e2e::fingerprint(f) == before);
  CHECK(f.etcd_revision() == revision);
  return plan;
}

std::string message_of(const json& plan, const std::string& id) {
  for (const auto& v : plan["verdicts"]) {
    if (v["id"] == id) return v["message"];
  }
  return {};
}

}  // namespace

TEST_CASE("a learner in etcd blocks (B9), and a member never started has no pod (B10)") {
  e2e::Namespace ns("e2e-block-learner");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  // etcd refuses membership changes until its members have been connected
  // for a while ("unhealthy cluster"): retry for up to 30 s.
  e2e::CommandResult add;
  for (int i = 0; i < 60; ++i) {
    add = f.etcdctl({"member", "add", "etcd-3", "--learner", "--peer-urls",
                     "https://etcd-3.etcd-headless." + ns.name() + ".svc:2380"});
    if (add.rc == 0 || add.err.find("unhealthy cluster") == std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  REQUIRE_MESSAGE(add.rc == 0, add.err);
  // "Member <hex> added to cluster <hex>": etcd knows it by ID only until it
  // starts. etcdctl writes the ID with %16x, so one below 2^60 comes padded
  // with spaces, not zeros (1 run in 16).
  std::string hex = add.out.substr(add.out.find("Member ") + 7);
  hex = hex.substr(hex.find_first_not_of(' '));
  hex = hex.substr(0, hex.find(' '));
  const std::string id = std::string(16 - hex.size(), '0') + hex;
  json plan = blocked_plan(f, {"B9", "B10"});
  const std::string b9 = message_of(plan, "B9");
  INFO(plan["verdicts"].dump(2));
  CHECK(b9.find("learner") != std::string::npos);
  CHECK(b9.find("member " + id + " (no name yet)") != std::string::npos);
  CHECK(b9.find("member \"\"") == std::string::npos);
  // Its https peer URL is the first S1 finds: named by its ID too.
  CHECK(message_of(plan, "S1").find("member " + id + " advertises") != std::string::npos);
  // spec.replicas 3 and 3 voters: the learner is not counted (W15).
  CHECK_FALSE(e2e::has_verdict(plan, "W15"));
}

TEST_CASE("a member pod that is not Ready blocks (B10)") {
  e2e::Namespace ns("e2e-block-ready");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls"});
  // No kubelet: the test writes the status a kubelet would for a failing probe.
  e2e::kubectl({"-n", ns.name(), "patch", "pod", "etcd-1", "--subresource", "status", "--type", "json", "-p",
                R"([{"op":"replace","path":"/status/conditions","value":[{"type":"Ready","status":"False"}]}])"});
  json plan = blocked_plan(f, {"B10"});
  CHECK(message_of(plan, "B10").find("etcd-1") != std::string::npos);
}

TEST_CASE("emptyDir storage blocks (B4)") {
  e2e::Namespace ns("e2e-block-emptydir");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5", "--empty-dir"});
  blocked_plan(f, {"B4"});
}

TEST_CASE("a custom claim name blocks with the real reason (B15)") {
  e2e::Namespace ns("e2e-block-claim");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5", "--claim-name", "store"});
  json plan = blocked_plan(f, {"B15"});
  CHECK(message_of(plan, "B15").find("data-") != std::string::npos);
  CHECK_FALSE(e2e::has_verdict(plan, "B11"));  // not a misleading "PVC not found"
}

TEST_CASE("options: a non-integer is B6, a CEL-violating value is rejected by the real server-side dry-run (B16)") {
  // One fixture per namespace: the legacy webhooks refuse a second legacy
  // EtcdCluster in a namespace once they are registered for it.
  e2e::Namespace ns("e2e-block-options");
  e2e::Namespace ns2("e2e-block-cel");
  e2e::LegacyFixture bad_int(ns.name(), "bad-int", {"--version", "3.6", "--spec-option", "quota-backend-bytes=8Gi"});
  json plan = blocked_plan(bad_int, {"B6"});
  CHECK(message_of(plan, "B6").find("8Gi") != std::string::npos);

  e2e::LegacyFixture cel(ns2.name(), "cel", {"--version", "3.6", "--spec-option", "snapshot-count=0",
                                            "--spec-option", "auto-compaction-retention=forever"});
  json judged = blocked_plan(cel, {"B16"});
  std::string text = judged["verdicts"].dump();
  CHECK(text.find("snapshotCount") != std::string::npos);
  CHECK(text.find("autoCompactionRetention") != std::string::npos);
}

TEST_CASE("an existing native EtcdCluster of the same name is never adopted into (B17)") {
  e2e::Namespace ns("e2e-block-native");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.5"});
  e2e::kubectl({"-n", ns.name(), "create", "-f", "-"}, R"({
    "apiVersion": "etcd-operator.cozystack.io/v1alpha2", "kind": "EtcdCluster",
    "metadata": {"name": "etcd"},
    "spec": {"replicas": 3, "version": "3.5.21", "storage": {"size": "1Gi"}}})");
  json plan = blocked_plan(f, {"B17"});
  CHECK(message_of(plan, "B17").find("marker") != std::string::npos);
}

TEST_CASE("all of a cluster's blockers are reported at once") {
  e2e::Namespace ns("e2e-block-all");
  e2e::LegacyFixture f(ns.name(), "etcd",
                       {"--version", "3.6", "--spec-option", "quota-backend-bytes=lots", "--spec-option",
                        "auto-compaction-mode=daily"});
  json plan = blocked_plan(f, {"B6", "B7"}, {"--version", "3"});
  CHECK(e2e::has_verdict(plan, "B2"));
}
