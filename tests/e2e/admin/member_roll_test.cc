// member roll (docs/break-glass-design.md#quorum): the Pod of a PVC member is deleted and comes
// back with the same data and member ID. No operator runs in the tests: a
// thread here stands in for its member controller in the least way (it
// creates the Pod again once the old one is gone), and the pod runner starts
// it over the same PVC directory.
#include <thread>

#include "member_e2e.h"

using namespace member_e2e;

namespace {

std::string pod_uid(const NativeCluster& c, const std::string& pod) {
  return c.kubectl({"get", "pod", pod, "--ignore-not-found", "-o", "jsonpath={.metadata.uid}"});
}

std::string etcd_id_of(const NativeCluster& c, const std::string& name) {
  for (const auto& m : etcd_members(c)) {
    if (m.value("name", "") == name) return hex_id(m);
  }
  return {};
}

// The operator's member controller, reduced to what roll relies on: when
// the Pod is gone, create it again as docs/rules.md#member-pod-and-pvc renders it from the
// EtcdMember. The Pod break-glass add rendered is that rendering; the copy
// drops only what the apiserver and the kubelet filled in, and the
// rendered-by annotation the operator's template does not carry.
void recreate_when_gone(const NativeCluster& c, const std::string& pod, const json& old) {
  const std::string uid = old["metadata"]["uid"];
  for (int i = 0; i < 600; ++i) {
    const std::string now = pod_uid(c, pod);
    if (now.empty()) break;
    if (now != uid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  json p = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", json::object()}, {"spec", old["spec"]}};
  for (const char* k : {"name", "namespace", "labels", "ownerReferences"}) p["metadata"][k] = old["metadata"][k];
  json anns = old["metadata"].value("annotations", json::object());
  anns.erase("cli.etcd-operator.cozystack.io/rendered-by");
  if (!anns.empty()) p["metadata"]["annotations"] = anns;
  p["spec"].erase("nodeName");
  e2e::kubectl({"create", "-f", "-"}, p.dump());
}

// The roll's mark on the EtcdMember (empty: none).
std::string rolling_mark(const NativeCluster& c, const std::string& m) {
  const json em = json::parse(c.kubectl({"get", "etcdmember", m, "-o", "json"}));
  return em["metadata"].value("annotations", json::object()).value("cli.etcd-operator.cozystack.io/rolling-pod-uid", "");
}

// A roll killed right after `step`, then run again: exactly one Pod
// replacement (the UID the stand-in created stays), the same member ID, the
// mark gone.
void killed_roll(const NativeCluster& c, const std::string& m, const std::string& id, const std::string& step) {
  CAPTURE(step);
  const json old = json::parse(c.kubectl({"get", "pod", m, "-o", "json"}));
  const std::string old_uid = old["metadata"]["uid"];
  // After the mark and the handover nothing is deleted yet: no stand-in for the killed run.
  const bool deleted = step != "mark-roll" && step != "move-leader";
  std::thread standin;
  if (deleted) standin = std::thread([&c, &m, &old] { recreate_when_gone(c, m, old); });
  auto k = c.tool_via("direct", {"member", "roll", m}, {"--yes", "--timeout", "90s"},
                      {{"KUBECTL_ETCD_TEST_KILL_AFTER", step}});
  if (standin.joinable()) standin.join();
  INFO("killed roll: " << k.err);
  REQUIRE(k.rc == 137);
  CHECK(rolling_mark(c, m) == old_uid);
  // The mark is ours, not a finding of `check`.
  auto chk = c.tool({"check"}, {"-o", "json"});
  CHECK(chk.out.find("rolling-pod-uid") == std::string::npos);
  check_i1_i3(c, "roll stopped after " + step);

  auto dry = c.tool({"member", "roll", m}, {"--dry-run", "-o", "json"});
  REQUIRE_MESSAGE(dry.rc == 0, dry.out << dry.err);
  const json plan = json::parse(dry.out);
  CHECK(plan["resume"] == true);
  CHECK(plan["steps"][0]["step"] == (deleted ? "wait-pod" : "move-leader"));
  CHECK(c.tool({"member", "roll", m}, {"--dry-run"}).out.find("resuming an earlier run") != std::string::npos);

  std::string replaced = pod_uid(c, m);
  std::thread second;
  if (!deleted) {
    // The marked Pod is still there: the re-run deletes it, once.
    CHECK(replaced == old_uid);
    second = std::thread([&c, &m, &old] { recreate_when_gone(c, m, old); });
  }
  auto r = c.tool({"member", "roll", m}, {"--yes", "-o", "json", "--timeout", "90s"});
  if (second.joinable()) second.join();
  INFO("re-run: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(json::parse(r.out)["id"] == id);
  // The killed run moved leadership away already: the re-run finds it done.
  if (step == "move-leader") CHECK(json::parse(r.out)["steps"][0]["outcome"] == "skipped");
  const std::string now = pod_uid(c, m);
  CHECK(now != old_uid);
  if (deleted) CHECK(now == replaced);  // the operator's new Pod was not deleted again
  CHECK(etcd_id_of(c, m) == id);
  CHECK(rolling_mark(c, m).empty());
  check_clean(c, "roll re-run after " + step);
}

}  // namespace

TEST_CASE("member roll: a PVC member comes back with its data and ID; refusals") {
  NativeCluster c(runner_fixture("3.6", 3));
  const auto ms = c.members();
  // A member whose Pod the tool rendered (and the pod runner runs over its PVC).
  auto a = member(c, {"add", "-o", "json"});
  INFO("add: " << a.out << a.err);
  REQUIRE(a.rc == 0);
  const std::string m4 = json::parse(a.out)["member"];
  CHECK(has(finding_codes(c), "HAND_RENDERED_POD"));
  const std::string id = etcd_id_of(c, m4);
  REQUIRE_FALSE(id.empty());
  REQUIRE(c.ctl({"put", "roll/before", "kept"}).find("OK") != std::string::npos);

  auto dry = c.tool({"member", "roll", m4}, {"--dry-run", "-o", "json"});
  REQUIRE_MESSAGE(dry.rc == 0, dry.out << dry.err);
  CHECK(json::parse(dry.out)["steps"][0]["step"] == "mark-roll");
  // Right before the delete, leadership moves away if m4 leads then.
  CHECK(json::parse(dry.out)["steps"][1]["step"] == "move-leader");
  CHECK(json::parse(dry.out)["steps"][2]["step"] == "delete-pod");

  // m4 leads: its Pod goes only after leadership moved away.
  REQUIRE(c.tool({"move-leader", m4}).rc == 0);
  const json old = json::parse(c.kubectl({"get", "pod", m4, "-o", "json"}));
  std::thread operator_standin([&c, &m4, &old] { recreate_when_gone(c, m4, old); });
  auto r = c.tool({"member", "roll", m4}, {"--yes", "-o", "json", "--timeout", "90s"});
  operator_standin.join();
  INFO("roll: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  CHECK(json::parse(r.out)["id"] == id);
  CHECK(json::parse(r.out)["steps"][1]["step"] == "move-leader");
  CHECK(json::parse(r.out)["steps"][1]["outcome"] == "done");
  const std::string now = pod_uid(c, m4);
  CHECK_FALSE(now.empty());
  CHECK(now != old["metadata"]["uid"].get<std::string>());
  CHECK(etcd_id_of(c, m4) == id);  // the same member, from the same PVC
  check_clean(c, "after the roll");
  CHECK_FALSE(has(finding_codes(c), "HAND_RENDERED_POD"));
  CHECK(c.ctl({"--endpoints", endpoint_of(c, ms[0]), "get", "roll/before", "--print-value-only"}) == "kept\n");
  CHECK(rolling_mark(c, m4).empty());

  // Resumable: killed after the mark and after the handover (the Pod not
  // deleted yet), and after the delete (the operator's new Pod must not be
  // deleted again).
  killed_roll(c, m4, id, "mark-roll");
  REQUIRE(c.tool({"move-leader", m4}).rc == 0);
  killed_roll(c, m4, id, "move-leader");
  killed_roll(c, m4, id, "delete-pod");

  // Over port-forward: every member, and the new Pod the roll waits for,
  // reached through the apiserver's pods/portforward.
  const json before_pf = json::parse(c.kubectl({"get", "pod", m4, "-o", "json"}));
  std::thread pf_standin([&c, &m4, &before_pf] { recreate_when_gone(c, m4, before_pf); });
  auto pf = c.tool_via("port-forward", {"member", "roll", m4}, {"--yes", "-o", "json", "--timeout", "90s"});
  pf_standin.join();
  INFO("roll over port-forward: " << pf.out << pf.err);
  REQUIRE(pf.rc == 0);
  CHECK(json::parse(pf.out)["id"] == id);
  CHECK(pod_uid(c, m4) != before_pf["metadata"]["uid"].get<std::string>());
  CHECK(etcd_id_of(c, m4) == id);
  CHECK(rolling_mark(c, m4).empty());
  check_clean(c, "after the roll over port-forward");

  // Refused: the operator is not active (nothing would recreate the Pod).
  const std::string before_refusal = pod_uid(c, m4);
  c.kubectl({"patch", "lease", "aa20b3a9.etcd-operator.cozystack.io", "--type=merge", "-p",
             R"({"spec":{"leaseDurationSeconds":1,"renewTime":"2026-01-01T00:00:00.000000Z"}})"});
  auto inactive = c.tool({"member", "roll", m4}, {"--yes"});
  CHECK(inactive.rc == 3);
  CHECK(inactive.err.find("operator is not active") != std::string::npos);
  CHECK(pod_uid(c, m4) == before_refusal);

  // Refused: a Memory member (its new Pod would start empty).
  const std::string version = c.kubectl({"get", "etcdcluster", c.name(), "-o", "jsonpath={.spec.version}"});
  e2e::kubectl({"create", "-n", c.ns(), "-f", "-"},
            json({{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"},
                  {"kind", "EtcdMember"},
                  {"metadata", {{"name", c.name() + "-mem01"}, {"labels", {{"etcd-operator.cozystack.io/cluster", c.name()}}}}},
                  {"spec", {{"clusterName", c.name()}, {"version", version}, {"storage", {{"size", "64Mi"}, {"medium", "Memory"}}},
                            {"initialCluster", "x=https://x:2380"}, {"clusterToken", "t"}}}})
                .dump());
  auto memory = c.tool({"member", "roll", c.name() + "-mem01"}, {"--dry-run"});
  CHECK(memory.rc == 3);
  CHECK(memory.out.find("Memory") != std::string::npos);
  CHECK(c.tool({"member", "roll", "nobody"}, {"--yes"}).rc == 6);
}
