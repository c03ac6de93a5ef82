// member remove --force-delete-pod (docs/break-glass-design.md): the fixture's Pods
// are bound to a Node of their own that no kubelet (and no pod runner)
// serves, so a deleted Pod stays Terminating as on a lost node.
#include "member_e2e.h"

using namespace member_e2e;

namespace {

void node_ready(const std::string& node, const std::string& status) {
  e2e::kubectl({"patch", "node", node, "--subresource=status", "--type=merge", "-p",
                R"({"status":{"conditions":[{"type":"Ready","status":")" + status +
                    R"(","reason":"Test","message":"set by the test","lastHeartbeatTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})"});
}

bool pod_exists(const NativeCluster& c, const std::string& pod) {
  return c.kubectl({"get", "pods", "-o", "name"}).find("pod/" + pod + "\n") != std::string::npos;
}

std::string deletion_timestamp(const NativeCluster& c, const std::string& pod) {
  return c.kubectl({"get", "pod", pod, "--ignore-not-found", "-o", "jsonpath={.metadata.deletionTimestamp}"});
}

struct NodeCleanup {
  std::string name;
  ~NodeCleanup() { e2e::kubectl_result({"delete", "node", name, "--ignore-not-found", "--wait=false"}); }
};

}  // namespace

TEST_CASE("member remove --force-delete-pod: dead members on a lost Node") {
  const std::string node = e2e::unique_name("lost");
  NodeCleanup cleanup{node};
  e2e::kubectl({"create", "-f", "-"},
               R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + node + R"("}})");
  node_ready(node, "True");
  auto o = runner_fixture("3.6", 3);
  o.extra.insert(o.extra.end(), {"--node", node});
  NativeCluster c(o);
  const auto ms = c.members();
  REQUIRE(c.tool({"move-leader", ms[0]}).rc == 0);
  c.act("kill", ms[2]);  // its etcd went down with the node

  // While the Node is Ready its kubelet would finish the deletion: refused.
  auto ready = member(c, {"remove", ms[2], "--force-delete-pod", "--dry-run"});
  CHECK(ready.rc == 3);
  CHECK(ready.out.find("which is Ready") != std::string::npos);

  // The node controller's verdict on a lost node.
  node_ready(node, "Unknown");
  auto r = member(c, {"remove", ms[2], "--force-delete-pod", "-o", "json"});
  INFO("remove: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  const json doc = json::parse(r.out);
  bool forced = false;
  for (const auto& s : doc["steps"]) {
    if (s["step"] == "force-delete-pod") forced = s["outcome"] == "done";
  }
  CHECK(forced);
  CHECK_FALSE(pod_exists(c, ms[2]));
  CHECK(etcd_members(c).size() == 2);
  check_i1_i3(c, "after the forced removal");

  // Without the flag the garbage collector's delete leaves the Pod
  // Terminating; a re-run with the flag finishes it (the Node is gone now).
  e2e::kubectl({"delete", "node", node});
  auto plain = member(c, {"remove", ms[1]});
  REQUIRE_MESSAGE(plain.rc == 0, plain.err);
  std::string ts;
  for (int i = 0; i < 150 && ts.empty(); ++i) {
    ts = deletion_timestamp(c, ms[1]);
    if (ts.empty()) usleep(200000);
  }
  CHECK_FALSE(ts.empty());
  CHECK(pod_exists(c, ms[1]));
  CHECK(member(c, {"remove", ms[1]}).rc == 6);  // nothing left to remove without the flag
  auto again = member(c, {"remove", ms[1], "--force-delete-pod", "-o", "json"});
  INFO("re-run: " << again.out << again.err);
  REQUIRE(again.rc == 0);
  CHECK(json::parse(again.out)["kind"] == "gone");
  CHECK_FALSE(pod_exists(c, ms[1]));
  // Idempotent: nothing is left at all now.
  CHECK(member(c, {"remove", ms[1], "--force-delete-pod"}).rc == 6);
}
