// `member unwedge` on states the real operator gets into when a member Pod's
// etcd stops, on a cluster it bootstrapped:
// 1. A member's etcd dies. The pod runner does not restart it (it stands in
//    for a kubelet without crash loops, so the operator's own replacement of
//    a member that restarted five times never starts): the member stays not
//    Ready. That alone stops nothing, and unwedge says so; but a scale-up
//    then waits for it for good, and unwedge names the member and the roll
//    that brings it back; after the roll the operator goes on by itself.
// 2. A member's etcd dies and a user removes it from etcd by hand, then
//    deletes its EtcdMember: the finalizer's MemberRemove of the stored ID
//    answers "member not found" forever and the operator waits on the
//    Terminating member. unwedge clears the stored ID; the finalizer
//    releases, and the operator fills the gap.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <thread>

#include "operator_cluster.h"

using json = nlohmann::json;

namespace {

json cluster(const e2e::OperatorCluster& c) {
  return e2e::get_json({"-n", c.ns(), "etcdclusters.etcd-operator.cozystack.io", c.name()});
}

json member(const e2e::OperatorCluster& c, const std::string& m) {
  return e2e::get_json({"-n", c.ns(), "etcdmembers.etcd-operator.cozystack.io", m});
}

// SIGKILL to the etcd the pod runner started for Pod `pod`.
void kill_etcd(const e2e::OperatorCluster& c, const std::string& pod) {
  std::ifstream f(c.runner().dir() + "/pods/" + pod + "/etcd.pid");
  std::string pid;
  f >> pid;
  REQUIRE_FALSE(pid.empty());
  auto r = e2e::run({"kill", "-KILL", pid});
  REQUIRE_MESSAGE(r.rc == 0, "kill " << pid << ": " << r.err);
}

std::string follower(const e2e::OperatorCluster& c) {
  const std::string leader = c.leader();
  for (const auto& m : c.members()) {
    if (m["metadata"]["name"] != leader) return m["metadata"]["name"];
  }
  FAIL("no follower");
  return {};
}

bool is(const json& cond, const char* status, const char* reason) {
  return cond.is_object() && cond.value("status", "") == status && cond.value("reason", "") == reason;
}

// The operator noticed: the member is Ready=False/PodNotReady and the cluster Degraded.
void wait_noticed(const e2e::OperatorCluster& c, const std::string& m) {
  e2e::wait_until(
      [&] {
        return is(e2e::condition(member(c, m), "Ready"), "False", "PodNotReady") &&
               is(e2e::condition(cluster(c), "Degraded"), "True", "MembersUnhealthy");
      },
      std::chrono::seconds(90), "the operator to report " + m + " not Ready and the cluster Degraded");
}

}  // namespace

TEST_CASE("unwedge on a dead member that blocks a scale-up, and on the Terminating ghost a hand removal leaves") {
  e2e::OperatorCluster c("e2e-opunwedge", {});
  const std::size_t log_start = c.log_size();

  // 1. A dead member; then a scale-up waits for it.
  const std::string dead = follower(c);
  const std::string dead_id = c.etcd_ids().at(dead);
  kill_etcd(c, dead);
  wait_noticed(c, dead);
  auto quiet = c.tool({"member", "unwedge"}, {"--dry-run"});
  INFO("unwedge (dead member, nothing waits): " << quiet.out << quiet.err);
  CHECK(quiet.rc == 0);
  CHECK(quiet.out.find("nothing to unwedge") != std::string::npos);

  e2e::kubectl({"-n", c.ns(), "scale", "etcdclusters.etcd-operator.cozystack.io", c.name(), "--replicas", "4"});
  std::this_thread::sleep_for(std::chrono::seconds(15));
  // The operator has not taken the new target up: it waits for every member
  // to be Ready first, logs nothing about it, and keeps reporting
  // Progressing=False/Reconciled with spec and observed apart.
  json held = cluster(c);
  CHECK(held["status"]["observed"]["replicas"] == 3);
  CHECK(is(e2e::condition(held, "Progressing"), "False", "Reconciled"));
  CHECK_FALSE(held["status"].contains("progressDeadline"));
  CHECK(c.members().size() == 3);
  // check calls that held, not in flight, and names the member.
  auto check = c.tool({"check"}, {"-o", "json"});
  INFO("check: " << check.out << check.err);
  CHECK(check.rc == 1);
  bool named = false;
  const json found = json::parse(check.out);
  for (const auto& f : found["findings"]) {
    if (f["code"] != "REPLICAS_MISMATCH") continue;
    CHECK(f["severity"] == "error");
    named = f["message"].get<std::string>().find(dead + " is not") != std::string::npos;
  }
  CHECK(named);
  auto advice = c.tool({"member", "unwedge"}, {"-o", "json"});
  INFO("unwedge (a scale-up waits): " << advice.out << advice.err);
  CHECK(advice.rc == 3);  // only a symptom this command does not fix; nothing changed
  json doc = json::parse(advice.out);
  REQUIRE(doc["advice"].size() == 1);
  CHECK(doc["advice"][0]["symptom"] == "dead-member");
  CHECK(doc["advice"][0]["member"] == dead);
  CHECK(doc["advice"][0]["action"].get<std::string>().find("kubectl etcd member roll " + dead) != std::string::npos);
  CHECK(doc["fixes"].empty());

  // What it points to brings the member back with its data, and the operator carries on to four.
  auto roll = c.tool({"member", "roll", dead}, {"--yes", "--timeout", "3m"});
  INFO("roll: " << roll.out << roll.err);
  REQUIRE(roll.rc == 0);
  CHECK(c.etcd_ids().at(dead) == dead_id);
  c.wait_converged("the operator to reach 4 members once " + dead + " is back");
  CHECK(c.membership_mismatch() == "");
  c.check_clean("after the roll and the scale-up");

  // 2. A dead member removed from etcd by hand, then its EtcdMember deleted.
  const std::string ghost = follower(c);
  const std::string ghost_id = c.etcd_ids().at(ghost);
  const std::size_t wedge_from = c.log_size();
  kill_etcd(c, ghost);
  wait_noticed(c, ghost);
  auto removed = c.etcdctl({"member", "remove", ghost_id});
  REQUIRE_MESSAGE(removed.rc == 0, "etcdctl member remove: " << removed.err);
  e2e::kubectl({"-n", c.ns(), "delete", "etcdmembers.etcd-operator.cozystack.io", ghost, "--wait=false"});
  // The operator's finalizer retries the stored ID for good, and everything else waits.
  e2e::wait_until(
      [&] {
        const std::string log = c.op().log().substr(wedge_from);
        return log.find("failed to remove member from etcd, will retry") != std::string::npos &&
               log.find("member not found") != std::string::npos;
      },
      std::chrono::seconds(60), "the operator's finalizer to fail on the removed member");
  std::this_thread::sleep_for(std::chrono::seconds(10));
  json stuck = member(c, ghost);
  CHECK(stuck["metadata"].contains("deletionTimestamp"));
  CHECK(stuck["status"]["memberID"] == ghost_id);

  auto plan = c.tool({"member", "unwedge"}, {"--dry-run", "-o", "json"});
  INFO("unwedge --dry-run: " << plan.out << plan.err);
  CHECK(plan.rc == 0);
  json p = json::parse(plan.out);
  REQUIRE(p["fixes"].size() == 1);
  CHECK(p["fixes"][0]["fix"] == "clear-id");
  CHECK(p["fixes"][0]["symptom"] == "terminating-ghost");
  CHECK(p["fixes"][0]["member"] == ghost);
  CHECK(p["operatorActive"] == true);  // no finalizer is dropped: the operator releases it
  auto fixed = c.tool({"member", "unwedge"}, {"--yes"});
  INFO("unwedge: " << fixed.out << fixed.err);
  CHECK(fixed.rc == 0);
  e2e::wait_until([&] { return e2e::kubectl_result({"-n", c.ns(), "get", "etcdmembers", ghost}).rc != 0; },
                  std::chrono::seconds(60), "the operator's finalizer to release " + ghost);
  c.wait_converged("the operator to fill the gap " + ghost + " left");
  CHECK(c.members().size() == 4);
  CHECK(c.etcd_ids().count(ghost) == 0);
  CHECK(c.membership_mismatch() == "");
  c.check_clean("after unwedge");

  // Besides the wedge itself (the finalizer's retries), nothing we did made the operator complain.
  std::vector<std::string> errors;
  for (const auto& e : c.operator_errors(log_start)) {
    if (e.find("failed to remove member from etcd, will retry") == std::string::npos) errors.push_back(e);
  }
  INFO("operator errors: " << json(errors).dump(2));
  CHECK(errors.empty());
}
