// Every step of member surgery run twice in a row over the in-memory world
// (docs/step-engine.md#the-seam): the second run of each step must answer
// already done ("skipped") and write nothing, as a re-run after a lost
// answer relies on. Not a mock of the flows: the real steps (admin::execute)
// over a world that answers as the servers do.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "admin/member_exec.h"
#include "admin/member_plan.h"
#include "admin/session.h"
#include "fixtures.h"
#include "kube/resource.h"
#include "member_world.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"
#include "operator/scale_target.h"

using namespace admin_test;

namespace {

const std::string kCluster = std::string(op::kLabelCluster);

// The world of converged_state(): cluster c, members c-aaaaa..c-ccccc (IDs
// 1..3, member 1 the leader), their Pods, a PDB.
World three_member_world() {
  World w;
  auto s = converged_state();
  w.put(op::resources::etcdclusters, s.cluster);
  for (auto m : s.members) {
    m["metadata"]["labels"][kCluster] = "c";
    w.put(op::resources::etcdmembers, m);
  }
  for (auto p : s.pods) {
    p["metadata"]["labels"][kCluster] = "c";
    w.put(kube::resources::pods, p);
  }
  w.put(kube::resources::poddisruptionbudgets,
        {{"metadata", {{"name", "c"}, {"namespace", "ns"}}}, {"spec", {{"minAvailable", 2}}}});
  w.etcd_members = s.etcd.members;
  w.leader = 1;
  return w;
}

// What `read_state` reads, from the world.
admin::LiveState state_of(World& w, bool operator_active) {
  admin::LiveState s;
  s.cluster = *w.find(op::resources::etcdclusters, "ns", "c");
  kube::ListOptions lo;
  lo.label_selector = kCluster + "=c";
  s.members = (*w.list_all(op::resources::etcdmembers, "ns", lo))["items"];
  s.pods = (*w.list_all(kube::resources::pods, "ns", lo))["items"];
  if (const auto* pdb = w.find(kube::resources::poddisruptionbudgets, "ns", "c")) s.pdb = *pdb;
  s.etcd.members = w.etcd_members;
  for (const auto& m : w.etcd_members) s.healthy.insert(m.id);
  s.leader = w.leader;
  s.operator_state = admin::OperatorState{operator_active, false, operator_active ? "lease held" : "no lease", ""};
  return s;
}

struct Ran {
  std::string step, outcome, detail;
  int writes = 0;  // the world's count once the step answered
};

// Runs `plan` with every step twice in a row; the answers in order.
std::vector<Ran> run_twice(World& w, const admin::MemberPlan& plan, const admin::MemberRequest& req) {
  admin::MemberPlan doubled = plan;
  doubled.steps.clear();
  for (const auto& s : plan.steps) {
    doubled.steps.push_back(s);
    doubled.steps.push_back(s);
  }
  admin::Session session;
  session.target = cluster_target();
  admin::MemberEnv env;
  env.session = &session;
  env.rendered_by = "kubectl-etcd/test";
  admin::ExecOptions o;
  o.timeout = std::chrono::seconds(3);
  std::vector<Ran> out;
  o.step_done = [&](const admin::StepResult& r) { out.push_back({admin::step_name(r.step), r.outcome, r.detail, w.writes}); };
  auto report = admin::execute(env, w, w, doubled, req, o);
  std::ostringstream log;
  for (const auto& l : w.log) log << l << "; ";
  INFO("writes: " << log.str());
  REQUIRE_MESSAGE(report.ok(), (report.ok() ? std::string() : report.error().one_line()));
  return out;
}

// Each second run answered "skipped" and wrote nothing.
void check_second_runs(const std::vector<Ran>& ran, const admin::MemberPlan& plan) {
  REQUIRE(ran.size() == plan.steps.size() * 2);
  for (std::size_t i = 0; i + 1 < ran.size(); i += 2) {
    INFO("step " << ran[i].step << ": first " << ran[i].outcome << " (" << ran[i].detail << "), second "
                 << ran[i + 1].outcome << " (" << ran[i + 1].detail << ")");
    CHECK(ran[i + 1].step == ran[i].step);
    CHECK(ran[i + 1].outcome == "skipped");
    CHECK(ran[i + 1].writes == ran[i].writes);
  }
}

std::vector<std::string> names(const admin::MemberPlan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps) out.push_back(admin::step_name(s.id));
  return out;
}

admin::MemberRequest request(admin::MemberOp op, std::string target, bool break_glass) {
  admin::MemberRequest r;
  r.op = op;
  r.target = std::move(target);
  r.break_glass = break_glass;
  return r;
}

}  // namespace

TEST_CASE("break-glass member add: every step run twice; the second is skipped and writes nothing") {
  World w = three_member_world();
  auto req = request(admin::MemberOp::Add, {}, true);
  auto plan = admin::plan_member(state_of(w, false), req);
  REQUIRE_FALSE(plan.refused());
  CHECK(names(plan) == std::vector<std::string>{"grow", "create-member", "register", "wire", "render", "record",
                                                "ready", "promote", "mark-voter", "pdb"});
  auto ran = run_twice(w, plan, req);
  check_second_runs(ran, plan);
  // The first runs did the add: a fourth voter, in etcd and in its EtcdMember.
  for (std::size_t i = 0; i < ran.size(); i += 2) CHECK_MESSAGE(ran[i].outcome == "done", ran[i].step);
  CHECK(w.etcd_members.size() == 4);
  CHECK_FALSE(w.etcd_members.back().is_learner);
  CHECK(base::int_at(*w.find(op::resources::etcdclusters, "ns", "c"), "/spec/replicas") == 4);
}

TEST_CASE("operator-mediated member add: scale asks for the plan's count, and a re-run after a lost answer resumes it") {
  World w = three_member_world();
  auto req = request(admin::MemberOp::Add, {}, false);
  auto plan = admin::plan_member(state_of(w, true), req);
  REQUIRE_FALSE(plan.refused());
  REQUIRE(names(plan) == std::vector<std::string>{"scale"});
  auto ran = run_twice(w, plan, req);
  check_second_runs(ran, plan);
  CHECK(ran[0].outcome == "done");
  const auto& cl = *w.find(op::resources::etcdclusters, "ns", "c");
  CHECK(base::int_at(cl, "/spec/replicas") == 4);
  const auto mark = op::scale_target(cl);
  REQUIRE(mark.has_value());
  CHECK(mark->replicas == 4);
  CHECK(mark->before == std::vector<std::string>{"c-aaaaa", "c-bbbbb", "c-ccccc"});

  // The answer to that patch lost, the command runs again, with --force too:
  // the plan resumes the add in flight and asks for no fifth member.
  for (bool force : {false, true}) {
    auto again = req;
    again.force = force;
    again.wait = true;
    auto p2 = admin::plan_member(state_of(w, true), again);
    INFO("force " << force << ": " << (p2.refusals.empty() ? std::string() : p2.refusals.front()));
    REQUIRE_FALSE(p2.refused());
    CHECK(p2.resume);
    CHECK(p2.want == 4);
    CHECK(p2.before == mark->before);
    CHECK(names(p2) == std::vector<std::string>{"scale", "wait-added"});
    auto scale_only = p2;
    scale_only.steps.pop_back();  // the wait reads the whole live state (read_state), not the world
    auto r2 = run_twice(w, scale_only, again);
    CHECK(r2[0].outcome == "skipped");
    CHECK(w.writes == ran.back().writes);
  }
  CHECK(base::int_at(*w.find(op::resources::etcdclusters, "ns", "c"), "/spec/replicas") == 4);

  // Once the operator settled at 4, a new add is a new add.
  auto settled = *w.find(op::resources::etcdclusters, "ns", "c");
  settled["status"]["observed"]["replicas"] = 4;
  w.put(op::resources::etcdclusters, settled);
  auto s = state_of(w, true);
  s.members.push_back(with_finalizer(member("c-ddddd", "0000000000000004")));
  s.etcd.members.push_back(etcd_member(4, "c-ddddd"));
  s.healthy.insert(4);
  auto next = admin::plan_member(s, req);
  CHECK_FALSE(next.resume);
  CHECK(next.want == 5);
}

TEST_CASE("break-glass member remove of the leader: every step run twice; the second is skipped and writes nothing") {
  World w = three_member_world();
  auto req = request(admin::MemberOp::Remove, "c-aaaaa", true);
  auto plan = admin::plan_member(state_of(w, false), req);
  REQUIRE_FALSE(plan.refused());
  CHECK(names(plan) == std::vector<std::string>{"move-leader", "clear-id", "delete-member", "remove-etcd", "release", "count"});
  auto ran = run_twice(w, plan, req);
  check_second_runs(ran, plan);
  CHECK(w.etcd_members.size() == 2);
  CHECK(w.find(op::resources::etcdmembers, "ns", "c-aaaaa") == nullptr);
  // readyMembers one below what the plan read, not two.
  CHECK(base::int_at(*w.find(op::resources::etcdclusters, "ns", "c"), "/status/readyMembers") == 2);
}

TEST_CASE("break-glass member remove --scale-down: the counts written once") {
  World w = three_member_world();
  auto req = request(admin::MemberOp::Remove, "c-ccccc", true);
  req.scale_down = true;
  auto plan = admin::plan_member(state_of(w, false), req);
  REQUIRE_FALSE(plan.refused());
  CHECK(names(plan).back() == "count");
  auto ran = run_twice(w, plan, req);
  check_second_runs(ran, plan);
  const auto& cl = *w.find(op::resources::etcdclusters, "ns", "c");
  CHECK(base::int_at(cl, "/spec/replicas") == 2);
  CHECK(base::int_at(cl, "/status/observed/replicas") == 2);
  CHECK(base::int_at(cl, "/status/readyMembers") == 2);
}

TEST_CASE("break-glass member replace: every step run twice; the second is skipped and writes nothing") {
  World w = three_member_world();
  auto req = request(admin::MemberOp::Replace, "c-bbbbb", true);
  auto plan = admin::plan_member(state_of(w, false), req);
  REQUIRE_FALSE(plan.refused());
  auto ran = run_twice(w, plan, req);
  check_second_runs(ran, plan);
  CHECK(w.etcd_members.size() == 3);
  CHECK(w.named("c-bbbbb") == nullptr);
  for (const auto& m : w.etcd_members) CHECK_FALSE(m.is_learner);
}

TEST_CASE("member roll of the leader: every step run twice; the second is skipped and writes nothing") {
  World w = three_member_world();
  auto req = request(admin::MemberOp::Roll, "c-aaaaa", false);
  auto plan = admin::plan_member(state_of(w, true), req);
  REQUIRE_FALSE(plan.refused());
  CHECK(names(plan) == std::vector<std::string>{"mark-roll", "move-leader", "delete-pod", "wait-pod", "rejoin",
                                                "unmark-roll"});
  const std::string old_uid = plan.pod_uid;
  auto ran = run_twice(w, plan, req);
  check_second_runs(ran, plan);
  const auto* pod = w.find(kube::resources::pods, "ns", "c-aaaaa");
  REQUIRE(pod != nullptr);
  CHECK(base::string_at(*pod, "/metadata/uid") != old_uid);
  CHECK(op::annotation(*w.find(op::resources::etcdmembers, "ns", "c-aaaaa"), op::kAnnRollingPodUid).empty());
}
