#include "admin/unwedge_plan.h"

#include <doctest/doctest.h>

#include "fixtures.h"

using namespace admin_test;

namespace {

using Clock = std::chrono::system_clock;

admin::LiveState healthy(bool operator_active = true) { return three_members(operator_active); }

std::vector<std::string> fixes(const admin::UnwedgePlan& p) {
  std::vector<std::string> out;
  for (const auto& f : p.fixes) out.push_back(admin::fix_name(f.id) + std::string(":") + f.symptom);
  return out;
}

}  // namespace

TEST_CASE("a healthy cluster has nothing to unwedge") {
  auto p = admin::plan_unwedge(healthy(), {}, Clock::now());
  CHECK(p.fixes.empty());
  CHECK(p.advice.empty());
  CHECK_FALSE(p.refused());
  CHECK(admin::unwedge_text(p) == "nothing to unwedge\n");
}

TEST_CASE("a Terminating EtcdMember etcd no longer lists: clear its ID; release only with the operator down") {
  auto s = healthy();
  s.members[2]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  s.etcd.members.pop_back();
  auto p = admin::plan_unwedge(s, {}, Clock::now());
  CHECK(fixes(p) == std::vector<std::string>{"clear-id:terminating-ghost"});
  CHECK(p.fixes[0].member == "c-ccccc");
  CHECK(p.fixes[0].peer_url == "https://c-ccccc.c.ns.svc:2380");  // what the fix's absence check looks for
  auto down = s;
  down.operator_state->active = false;
  CHECK(fixes(admin::plan_unwedge(down, {}, Clock::now())) ==
        std::vector<std::string>{"clear-id:terminating-ghost", "release:terminating-ghost"});
  // Still listed by etcd: the finalizer's own MemberRemove is due, nothing to fix.
  auto listed = healthy();
  listed.members[2]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK(admin::plan_unwedge(listed, {}, Clock::now()).fixes.empty());
  // Listed by peer URL only (added, never started): still listed.
  listed.etcd.members[2].name = "";
  listed.etcd.members[2].id = 99;
  CHECK(admin::plan_unwedge(listed, {}, Clock::now()).fixes.empty());
}

TEST_CASE("orphan learners: no EtcdMember, or one not pending without a Pod") {
  auto s = healthy();
  s.etcd.members.push_back(etcd_member(9, "", true));
  s.etcd.members.back().peer_urls = {"https://stray.c.ns.svc:2380"};
  auto p = admin::plan_unwedge(s, {}, Clock::now());
  REQUIRE(fixes(p) == std::vector<std::string>{"remove-learner:orphan-learner"});
  CHECK(p.fixes[0].etcd_id == 9);
  // A wired EtcdMember whose Pod never came.
  auto w = healthy();
  w.members.push_back(with_member_finalizer(member("c-ddddd", "", false)));
  w.etcd.members.push_back(etcd_member(4, "", true));
  w.etcd.members.back().peer_urls = {"https://c-ddddd.c.ns.svc:2380"};
  auto wp = admin::plan_unwedge(w, {}, Clock::now());
  REQUIRE(fixes(wp) == std::vector<std::string>{"remove-learner:orphan-learner"});
  CHECK(wp.fixes[0].member == "c-ddddd");
  // With its Pod, or still pending, it is an add in progress.
  auto with_pod = w;
  with_pod.pods.push_back(pod("c-ddddd", "10.0.0.4", false));
  CHECK(admin::plan_unwedge(with_pod, {}, Clock::now()).fixes.empty());
  auto pending = w;
  pending.members[3]["spec"]["initialCluster"] = "";
  CHECK(admin::plan_unwedge(pending, {}, Clock::now()).fixes.empty());
}

TEST_CASE("DeadlineExceeded with spec equal to observed is advice; --expire-deadline moves a deadline ahead") {
  auto s = healthy();
  s.cluster["status"]["observed"]["version"] = "3.6.11";
  s.cluster["status"]["conditions"] = json::array(
      {{{"type", "Available"}, {"status", "False"}, {"reason", "DeadlineExceeded"}, {"message", "x"}}});
  auto p = admin::plan_unwedge(s, {}, Clock::now());
  CHECK(p.fixes.empty());
  REQUIRE(p.advice.size() == 1);
  CHECK(p.advice[0].symptom == "deadline-exceeded");
  // spec differs from observed: the operator adopts it by itself.
  auto differs = s;
  differs.cluster["spec"]["replicas"] = 5;
  CHECK(admin::plan_unwedge(differs, {}, Clock::now()).advice.empty());
  // The escalation, only with the flag and only for a deadline still ahead.
  s.cluster["status"]["progressDeadline"] = "2026-06-01T00:00:00Z";
  admin::UnwedgeRequest r;
  r.expire_deadline = true;
  const auto before = Clock::from_time_t(1780000000 - 3600);  // 2026-05-28
  CHECK(admin::plan_unwedge(s, {}, before).fixes.empty());
  CHECK(fixes(admin::plan_unwedge(s, r, before)) == std::vector<std::string>{"expire-deadline:wedged-reconcile"});
  const auto after = Clock::from_time_t(1790000000);  // 2026-09
  CHECK(admin::plan_unwedge(s, r, after).fixes.empty());
}

TEST_CASE("a member not Ready on a lost Node points to member replace") {
  auto s = healthy();
  s.cluster["status"]["observed"]["version"] = "3.6.11";  // spec equals observed
  s.pods[1]["spec"]["nodeName"] = "n2";
  s.pods[1]["status"]["conditions"][0]["status"] = "False";
  s.healthy = {1, 3};
  s.node_ready["n2"] = false;
  auto p = admin::plan_unwedge(s, {}, Clock::now());
  REQUIRE(p.advice.size() == 1);
  CHECK(p.advice[0].symptom == "dead-member");
  CHECK(p.advice[0].text.find("member replace c-bbbbb") != std::string::npos);
  s.node_ready["n2"] = true;  // the kubelet is there: it restarts the container
  CHECK(admin::plan_unwedge(s, {}, Clock::now()).advice.empty());
}

TEST_CASE("a dead voter on a Ready Node is advice only while a change waits for it") {
  auto s = healthy();
  s.cluster["status"]["observed"]["version"] = "3.6.11";  // spec equals observed
  s.pods[1]["spec"]["nodeName"] = "n2";
  s.pods[1]["status"]["conditions"][0]["status"] = "False";
  s.healthy = {1, 3};
  s.node_ready["n2"] = true;
  s.cluster["spec"]["replicas"] = 4;  // the operator adopts it only once every member is Ready
  auto p = admin::plan_unwedge(s, {}, Clock::now());
  REQUIRE(p.advice.size() == 1);
  CHECK(p.advice[0].member == "c-bbbbb");
  CHECK(p.advice[0].text.find("member roll c-bbbbb") != std::string::npos);
  CHECK(p.fixes.empty());
  // Observed adopted but a member short: the same.
  auto gap = s;
  gap.cluster["spec"]["replicas"] = 3;
  gap.members.erase(2);
  gap.etcd.members.pop_back();
  gap.healthy = {1};
  CHECK(admin::plan_unwedge(gap, {}, Clock::now()).advice.size() == 1);
  // A learner being added is not Ready yet by design: no advice.
  auto joining = s;
  joining.etcd.members[1].is_learner = true;
  CHECK(admin::plan_unwedge(joining, {}, Clock::now()).advice.empty());
  // In memory: only replace brings it back.
  auto mem = s;
  mem.members[1]["spec"]["storage"] = {{"medium", "Memory"}};
  auto mp = admin::plan_unwedge(mem, {}, Clock::now());
  REQUIRE(mp.advice.size() == 1);
  CHECK(mp.advice[0].text.find("member roll") == std::string::npos);
  CHECK(mp.advice[0].text.find("member replace c-bbbbb") != std::string::npos);
}

TEST_CASE("without a MemberList the membership symptoms are not judged") {
  auto s = healthy();
  s.etcd.members.clear();
  s.etcd_error = "context deadline exceeded";
  CHECK(admin::plan_unwedge(s, {}, Clock::now()).refused());
}

TEST_CASE("the fixes' names, as the plan, the summary and the JSON document print them") {
  CHECK(std::string(admin::fix_name(admin::FixId::ClearId)) == "clear-id");
  CHECK(std::string(admin::fix_name(admin::FixId::Release)) == "release");
  CHECK(std::string(admin::fix_name(admin::FixId::RemoveLearner)) == "remove-learner");
  CHECK(std::string(admin::fix_name(admin::FixId::ExpireDeadline)) == "expire-deadline");
}
