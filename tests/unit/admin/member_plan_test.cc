#include "admin/member_plan.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "fixtures.h"

using namespace admin_test;

namespace {

std::vector<std::string> ids(const admin::MemberPlan& p) {
  std::vector<std::string> out;
  for (const auto& s : p.steps) out.push_back(admin::step_name(s.id));
  return out;
}

admin::MemberRequest req(admin::MemberOp op, std::string target = {}, bool break_glass = true) {
  admin::MemberRequest r;
  r.op = op;
  r.target = std::move(target);
  r.break_glass = break_glass;
  return r;
}

bool refused_with(const admin::MemberPlan& p, const std::string& text) {
  return std::any_of(p.refusals.begin(), p.refusals.end(),
                     [&](const std::string& r) { return r.find(text) != std::string::npos; });
}

}  // namespace

TEST_CASE("break-glass add grows by one and walks the whole table") {
  auto p = admin::plan_member(converged_state(), req(admin::MemberOp::Add));
  CHECK_FALSE(p.refused());
  CHECK(p.mode == admin::Mode::BreakGlass);
  CHECK(ids(p) == std::vector<std::string>{"grow", "create-member", "register", "wire", "render", "record", "ready",
                                           "promote", "mark-voter", "pdb"});
  CHECK(p.warnings.size() == 1);  // 4 members: even
  auto np = admin::plan_member(converged_state(), [] {
    auto r = req(admin::MemberOp::Add);
    r.no_promote = true;
    return r;
  }());
  CHECK(ids(np).back() == "ready");
}

TEST_CASE("add fills a gap instead of growing, and resumes a pending member") {
  auto s = converged_state();
  s.members.erase(2);
  s.etcd.members.pop_back();
  s.healthy = {1, 2};
  auto gap = admin::plan_member(s, req(admin::MemberOp::Add));
  CHECK_FALSE(gap.refused());
  CHECK(ids(gap).front() == "create-member");

  auto pending = with_finalizer(member("c-ddddd", ""));
  pending["spec"]["initialCluster"] = "";
  pending["status"] = json::object();
  s.members.push_back(pending);
  auto resume = admin::plan_member(s, req(admin::MemberOp::Add));
  CHECK_FALSE(resume.refused());
  CHECK(resume.resume);
  CHECK(resume.member == "c-ddddd");
  CHECK(ids(resume).front() == "register");
}

TEST_CASE("add resumes a promoted member whose voter flag was not written yet") {
  auto s = converged_state();
  s.members[2]["status"]["isVoter"] = false;
  auto p = admin::plan_member(s, req(admin::MemberOp::Add));
  CHECK(p.resume);
  CHECK(p.member == "c-ccccc");
  CHECK(ids(p) == std::vector<std::string>{"mark-voter", "pdb"});
}

TEST_CASE("add refuses an orphan learner, a dead voter and a user change in flight") {
  auto s = converged_state();
  s.etcd.members.push_back(etcd_member(9, "stray", true));
  CHECK(refused_with(admin::plan_member(s, req(admin::MemberOp::Add)), "orphan learner"));
  s = converged_state();
  s.healthy = {1, 2};
  CHECK(refused_with(admin::plan_member(s, req(admin::MemberOp::Add)), "do not answer"));
  s = converged_state();
  s.cluster["spec"]["replicas"] = 5;
  CHECK(refused_with(admin::plan_member(s, req(admin::MemberOp::Add)), "differs"));
  s.cluster["status"]["clusterID"] = "";
  CHECK(refused_with(admin::plan_member(s, req(admin::MemberOp::Add)), "never formed"));
}

TEST_CASE("add, in either mode, refuses certificates that do not cover a new member's name, unless --force") {
  for (bool break_glass : {true, false}) {
    auto s = converged_state(!break_glass);
    s.uncovered_certs = {"Secret c-server-tls (tls.crt names: c-0.c-headless.ns.svc)"};
    auto p = admin::plan_member(s, req(admin::MemberOp::Add, {}, break_glass));
    CHECK(refused_with(p, "the certificate of Secret c-server-tls (tls.crt names: c-0.c-headless.ns.svc) does not cover "
                          "c-00000.c.ns.svc"));
    CHECK(refused_with(p, "add the DNS name *.c.ns.svc"));
    auto forced = req(admin::MemberOp::Add, {}, break_glass);
    forced.force = true;
    CHECK_FALSE(admin::plan_member(s, forced).refused());
  }
  // Removing does not need the name of a new member.
  auto s = converged_state(true);
  s.uncovered_certs = {"Secret c-server-tls (tls.crt names: none)"};
  CHECK_FALSE(admin::plan_member(s, req(admin::MemberOp::Remove, "c-bbbbb", false)).refused());
}

TEST_CASE("modes: operator-mediated by default, break-glass refused while the operator runs") {
  auto active = converged_state(true);
  auto op = admin::plan_member(active, req(admin::MemberOp::Add, {}, false));
  CHECK_FALSE(op.refused());
  CHECK(op.mode == admin::Mode::Operator);
  CHECK(ids(op) == std::vector<std::string>{"scale"});
  CHECK(refused_with(admin::plan_member(active, req(admin::MemberOp::Add)), "--stop-operator"));
  auto stop = req(admin::MemberOp::Add);
  stop.stop_operator = true;
  auto sp = admin::plan_member(active, stop);
  CHECK_FALSE(sp.refused());
  CHECK(sp.stop_operator);
  CHECK(refused_with(admin::plan_member(converged_state(false), req(admin::MemberOp::Add, {}, false)), "--break-glass"));
  auto rm = admin::plan_member(active, req(admin::MemberOp::Remove, "c-bbbbb", false));
  CHECK(ids(rm) == std::vector<std::string>{"move-leader", "delete-member"});
}

TEST_CASE("operator-mediated --wait: the waits are steps of the plan, with the count they wait for") {
  auto active = converged_state(true);
  auto add = req(admin::MemberOp::Add, {}, false);
  add.wait = true;
  auto p = admin::plan_member(active, add);
  CHECK_FALSE(p.refused());
  CHECK(ids(p) == std::vector<std::string>{"scale", "wait-added"});
  CHECK(p.want == 4);
  CHECK(p.before == std::vector<std::string>{"c-aaaaa", "c-bbbbb", "c-ccccc"});
  // Without --wait the plan ends with the patch.
  CHECK(ids(admin::plan_member(active, req(admin::MemberOp::Add, {}, false))) == std::vector<std::string>{"scale"});

  auto rm = req(admin::MemberOp::Remove, "c-bbbbb", false);
  rm.wait = true;
  auto r = admin::plan_member(active, rm);
  CHECK_FALSE(r.refused());
  CHECK(ids(r) == std::vector<std::string>{"move-leader", "delete-member", "wait-removed", "wait-filled"});
  CHECK(r.want == 3);  // the operator fills the gap: spec.replicas stays
  CHECK(r.id == 2);
  auto rp = req(admin::MemberOp::Replace, "c-bbbbb", false);
  rp.wait = true;
  CHECK(ids(admin::plan_member(active, rp)) ==
        std::vector<std::string>{"move-leader", "delete-member", "wait-removed", "wait-filled"});
  rp.wait = false;
  CHECK(ids(admin::plan_member(active, rp)) == std::vector<std::string>{"move-leader", "delete-member"});
  // An orphan learner is removed at once; nothing is left to wait for.
  auto o = converged_state(true);
  o.etcd.members.push_back(etcd_member(9, "", true));
  o.etcd.members.back().peer_urls = {"https://orphan.c.ns.svc:2380"};
  auto orm = req(admin::MemberOp::Remove, "9", false);
  orm.wait = true;
  CHECK(ids(admin::plan_member(o, orm)) == std::vector<std::string>{"remove-etcd"});
  // Break-glass steps wait by themselves: --wait adds nothing.
  auto bg = req(admin::MemberOp::Remove, "c-bbbbb");
  bg.wait = true;
  CHECK(ids(admin::plan_member(converged_state(), bg)) ==
        std::vector<std::string>{"clear-id", "delete-member", "remove-etcd", "release", "count"});
}

TEST_CASE("operator-mediated remove, replace and roll hand leadership away right before the target goes down") {
  // docs/break-glass-design.md#leader-handover: the operator's MemberRemove of
  // the leader (or the leader's Pod deleted) costs an election.
  auto active = converged_state(true);  // c-aaaaa (1) leads
  for (auto op : {admin::MemberOp::Remove, admin::MemberOp::Replace}) {
    auto r = req(op, "c-aaaaa", false);
    r.wait = true;
    auto p = admin::plan_member(active, r);
    CHECK_FALSE(p.refused());
    CHECK(ids(p) == std::vector<std::string>{"move-leader", "delete-member", "wait-removed", "wait-filled"});
    CHECK(p.steps[0].text.find("move leadership from EtcdMember c-aaaaa (it leads) to a healthy voter") == 0);
    CHECK(admin::plan_text(p).find("1. move-leader: move leadership from EtcdMember c-aaaaa") != std::string::npos);
  }
  // A follower now may lead by the time the step runs: the step is there, and says so.
  auto follower = admin::plan_member(active, req(admin::MemberOp::Remove, "c-bbbbb", false));
  CHECK(follower.steps[0].text.find("if EtcdMember c-bbbbb leads by then") == 0);
  // A learner never leads; a ghost has no etcd member.
  auto learner = active;
  learner.etcd.members[2].is_learner = true;
  learner.members[2]["status"]["isVoter"] = false;
  CHECK(ids(admin::plan_member(learner, req(admin::MemberOp::Remove, "c-ccccc", false))) ==
        std::vector<std::string>{"delete-member"});
  auto ghost = active;
  ghost.etcd.members.pop_back();
  ghost.healthy = {1, 2};
  CHECK(ids(admin::plan_member(ghost, req(admin::MemberOp::Remove, "c-ccccc", false))) ==
        std::vector<std::string>{"clear-id", "delete-member"});
  // --no-move-leader: refused for the leader, no step for a follower.
  auto keep = req(admin::MemberOp::Remove, "c-aaaaa", false);
  keep.move_leader = false;
  CHECK(refused_with(admin::plan_member(active, keep), "EtcdMember c-aaaaa leads: leadership must move first"));
  keep.target = "c-bbbbb";
  CHECK(ids(admin::plan_member(active, keep)) == std::vector<std::string>{"delete-member"});
  // A re-run after the delete: the EtcdMember is Terminating and etcd still
  // lists it, so the step still comes before the waits.
  auto resumed = active;
  resumed.members[0]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  auto again = req(admin::MemberOp::Remove, "c-aaaaa", false);
  again.wait = true;
  auto rp = admin::plan_member(resumed, again);
  CHECK(rp.resume);
  CHECK(ids(rp) == std::vector<std::string>{"move-leader", "wait-removed", "wait-filled"});
  // Roll of the leader: after the mark, right before its Pod is deleted.
  active.pods[0]["metadata"]["uid"] = "pod-uid-a";
  auto roll = admin::plan_member(active, req(admin::MemberOp::Roll, "c-aaaaa", false));
  CHECK_FALSE(roll.refused());
  CHECK(ids(roll) == std::vector<std::string>{"mark-roll", "move-leader", "delete-pod", "wait-pod", "rejoin", "unmark-roll"});
  CHECK(roll.steps[1].text.find("(it leads)") != std::string::npos);
}

TEST_CASE("operator-mediated add is refused while the operator still converges to observed.replicas") {
  // spec == observed == 3 but only two running members: the operator is
  // filling a gap; one more +1 would ask for a fourth member nobody wanted.
  auto s = converged_state(true);
  s.members.erase(2);
  s.etcd.members.pop_back();
  s.healthy = {1, 2};
  auto p = admin::plan_member(s, req(admin::MemberOp::Add, {}, false));
  CHECK(refused_with(p, "still converging"));
  auto forced = req(admin::MemberOp::Add, {}, false);
  forced.force = true;
  CHECK_FALSE(admin::plan_member(s, forced).refused());
}

TEST_CASE("remove of a voter, of the leader, with a shrink") {
  auto p = admin::plan_member(converged_state(), req(admin::MemberOp::Remove, "c-bbbbb"));
  CHECK_FALSE(p.refused());
  CHECK(p.id == 2);
  CHECK(p.kind == admin::TargetKind::Member);
  CHECK(ids(p) == std::vector<std::string>{"clear-id", "delete-member", "remove-etcd", "release", "count"});
  auto lead = admin::plan_member(converged_state(), req(admin::MemberOp::Remove, "c-aaaaa"));
  CHECK(ids(lead).front() == "move-leader");
  auto shrink = req(admin::MemberOp::Remove, "0000000000000003");
  shrink.scale_down = true;
  auto sp = admin::plan_member(converged_state(), shrink);
  CHECK(sp.member == "c-ccccc");
  CHECK(sp.steps.back().text.find("3 -> 2") != std::string::npos);
}

TEST_CASE("remove refuses losing quorum, the last member and a change in flight") {
  auto s = converged_state();
  s.healthy = {1, 2};
  CHECK(refused_with(admin::plan_member(s, req(admin::MemberOp::Remove, "c-bbbbb")), "quorum"));
  // The dead one may go: two healthy voters stay, the quorum of two.
  CHECK_FALSE(admin::plan_member(s, req(admin::MemberOp::Remove, "c-ccccc")).refused());
  auto one = converged_state();
  one.members = json::array({one.members[0]});
  one.etcd.members = {one.etcd.members[0]};
  one.cluster["status"]["observed"]["replicas"] = 1;
  one.cluster["spec"]["replicas"] = 1;
  CHECK(refused_with(admin::plan_member(one, req(admin::MemberOp::Remove, "c-aaaaa")), "last member"));
  auto busy = converged_state();
  busy.members[2]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK(refused_with(admin::plan_member(busy, req(admin::MemberOp::Remove, "c-bbbbb")), "Terminating"));
  // ...but removing the Terminating one itself resumes it.
  auto again = admin::plan_member(busy, req(admin::MemberOp::Remove, "c-ccccc"));
  CHECK_FALSE(again.refused());
  CHECK(again.resume);
  auto nf = admin::plan_member(converged_state(), req(admin::MemberOp::Remove, "nobody"));
  CHECK_FALSE(nf.not_found.empty());
}

TEST_CASE("remove of an orphan learner and of a ghost") {
  auto s = converged_state();
  s.etcd.members.push_back(etcd_member(9, "", true));
  s.etcd.members.back().peer_urls = {"https://orphan.c.ns.svc:2380"};
  auto orphan = admin::plan_member(s, req(admin::MemberOp::Remove, "9", false));
  CHECK(orphan.kind == admin::TargetKind::Orphan);
  CHECK_FALSE(orphan.refused());  // safe alongside the operator, even without --break-glass
  CHECK(ids(orphan) == std::vector<std::string>{"remove-etcd"});
  auto g = converged_state();
  g.etcd.members.pop_back();
  g.healthy = {1, 2};
  auto ghost = admin::plan_member(g, req(admin::MemberOp::Remove, "c-ccccc"));
  CHECK(ghost.kind == admin::TargetKind::Ghost);
  CHECK_FALSE(ghost.refused());
  CHECK(ids(ghost) == std::vector<std::string>{"clear-id", "delete-member", "release", "count"});
}

TEST_CASE("remove --force-delete-pod: only a Pod whose Node is NotReady or gone") {
  auto s = converged_state();
  s.pods[2]["spec"]["nodeName"] = "n3";
  s.node_ready["n3"] = false;
  auto r = req(admin::MemberOp::Remove, "c-ccccc");
  r.force_delete_pod = true;
  auto p = admin::plan_member(s, r);
  CHECK_FALSE(p.refused());
  CHECK(ids(p) == std::vector<std::string>{"clear-id", "delete-member", "remove-etcd", "release", "force-delete-pod",
                                           "count"});
  s.node_ready["n3"] = true;
  CHECK(refused_with(admin::plan_member(s, r), "which is Ready"));
  // A re-run once the EtcdMember is gone: only the stuck Pod is left.
  auto gone = converged_state();
  gone.members.erase(2);
  gone.etcd.members.pop_back();
  gone.pods[2]["spec"]["nodeName"] = "n3";
  gone.pods[2]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  auto g = admin::plan_member(gone, r);
  CHECK(g.not_found.empty());
  CHECK(g.kind == admin::TargetKind::Gone);
  CHECK(ids(g) == std::vector<std::string>{"force-delete-pod"});
  // Without the flag that target does not exist.
  CHECK_FALSE(admin::plan_member(gone, req(admin::MemberOp::Remove, "c-ccccc")).not_found.empty());
  // An etcd member without EtcdMember has no Pod to delete.
  auto o = converged_state();
  o.etcd.members.push_back(etcd_member(9, "", true));
  o.etcd.members.back().peer_urls = {"https://orphan.c.ns.svc:2380"};
  auto orphan = req(admin::MemberOp::Remove, "9");
  orphan.force_delete_pod = true;
  CHECK(refused_with(admin::plan_member(o, orphan), "no EtcdMember and no Pod"));
}

TEST_CASE("roll: a PVC member through the active operator; Memory members and an inactive operator refused") {
  auto s = converged_state(true);
  s.pods[1]["metadata"]["uid"] = "pod-uid-b";
  auto p = admin::plan_member(s, req(admin::MemberOp::Roll, "c-bbbbb", false));
  CHECK_FALSE(p.refused());
  CHECK(ids(p) == std::vector<std::string>{"mark-roll", "move-leader", "delete-pod", "wait-pod", "rejoin", "unmark-roll"});
  CHECK(p.pod_uid == "pod-uid-b");
  CHECK_FALSE(p.resume);
  CHECK(p.id == 2);
  CHECK(admin::plan_member(s, req(admin::MemberOp::Roll, "0000000000000002", false)).member == "c-bbbbb");
  auto mem = s;
  mem.members[1]["spec"]["storage"] = {{"size", "1Gi"}, {"medium", "Memory"}};
  CHECK(refused_with(admin::plan_member(mem, req(admin::MemberOp::Roll, "c-bbbbb", false)), "Memory"));
  CHECK(refused_with(admin::plan_member(converged_state(false), req(admin::MemberOp::Roll, "c-bbbbb", false)),
                     "operator is not active"));
  // Another member already down: restarting a second voter loses quorum.
  auto down = s;
  down.healthy = {1, 3};
  CHECK(refused_with(admin::plan_member(down, req(admin::MemberOp::Roll, "c-aaaaa", false)), "quorum"));
  CHECK_FALSE(admin::plan_member(s, req(admin::MemberOp::Roll, "nobody", false)).not_found.empty());
}

TEST_CASE("roll resumes from the mark on the EtcdMember and never deletes a Pod it did not mark") {
  auto s = converged_state(true);
  s.members[1]["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/rolling-pod-uid"] = "pod-uid-b";
  // Killed between the mark and the delete: the marked Pod is still there.
  s.pods[1]["metadata"]["uid"] = "pod-uid-b";
  auto before = admin::plan_member(s, req(admin::MemberOp::Roll, "c-bbbbb", false));
  CHECK_FALSE(before.refused());
  CHECK(before.resume);
  CHECK(ids(before) == std::vector<std::string>{"move-leader", "delete-pod", "wait-pod", "rejoin", "unmark-roll"});
  CHECK(before.pod_uid == "pod-uid-b");
  // Killed after the delete: the operator's new Pod is not deleted again.
  s.pods[1]["metadata"]["uid"] = "pod-uid-new";
  auto after = admin::plan_member(s, req(admin::MemberOp::Roll, "c-bbbbb", false));
  CHECK(after.resume);
  CHECK(ids(after) == std::vector<std::string>{"wait-pod", "rejoin", "unmark-roll"});
  CHECK(after.pod_uid == "pod-uid-b");
  CHECK(admin::plan_text(after).find("resuming an earlier run") != std::string::npos);
  // No Pod yet: likewise only the waits.
  s.pods.erase(1);
  s.healthy = {1, 3};
  auto none = admin::plan_member(s, req(admin::MemberOp::Roll, "c-bbbbb", false));
  CHECK_FALSE(none.refused());
  CHECK(ids(none) == std::vector<std::string>{"wait-pod", "rejoin", "unmark-roll"});
}

TEST_CASE("promote: a learner with a Ready Pod; an orphan learner is refused") {
  auto s = converged_state();
  s.members.push_back(with_finalizer(member("c-ddddd", "", false)));
  s.pods.push_back(pod("c-ddddd", "10.0.0.4", false));
  s.etcd.members.push_back(etcd_member(4, "c-ddddd", true));
  auto p = admin::plan_member(s, req(admin::MemberOp::Promote, "c-ddddd"));
  CHECK_FALSE(p.refused());
  CHECK(ids(p) == std::vector<std::string>{"promote", "mark-voter", "pdb"});
  auto op = admin::plan_member(converged_state(true), req(admin::MemberOp::Promote, "c-aaaaa", false));
  CHECK(op.steps.empty());  // already a voter: nothing to do
  s.etcd.members.push_back(etcd_member(5, "", true));
  CHECK(refused_with(admin::plan_member(s, req(admin::MemberOp::Promote, "5")), "orphan"));
}

TEST_CASE("replace removes first, then fills the gap") {
  auto s = converged_state();
  s.healthy = {1, 2};
  auto p = admin::plan_member(s, req(admin::MemberOp::Replace, "c-ccccc"));
  CHECK_FALSE(p.refused());
  CHECK(ids(p) == std::vector<std::string>{"clear-id", "delete-member", "remove-etcd", "release", "count",
                                           "create-member", "register", "wire", "render", "record", "ready",
                                           "promote", "mark-voter", "pdb"});
}

// The first run of a replace removed its target and created the new
// EtcdMember (or registered it), then stopped: the answer to a write lost
// (docs/server-faults.md#lost-answers). The member being added does not
// fill the gap yet: the same command again resumes it.
TEST_CASE("replace run again after its target went resumes the member it was adding") {
  auto s = converged_state();
  s.members.erase(2);
  s.etcd.members.pop_back();
  s.healthy = {1, 2};
  auto pending = with_finalizer(member("c-ddddd", ""));
  pending["spec"]["initialCluster"] = "";
  pending["status"] = json::object();
  s.members.push_back(pending);
  auto p = admin::plan_member(s, req(admin::MemberOp::Replace, "c-ccccc"));
  CHECK(p.not_found.empty());
  CHECK_FALSE(p.refused());
  CHECK(p.resume);
  CHECK(p.kind == admin::TargetKind::Gone);
  REQUIRE_FALSE(p.steps.empty());
  CHECK(ids(p).front() == "register");

  // Registered as a learner and wired: still the member being added.
  s.members.back()["spec"]["initialCluster"] = "c-aaaaa=https://c-aaaaa.c.ns.svc:2380";
  s.etcd.members.push_back(etcd_member(4, "", true));
  s.etcd.members.back().peer_urls = {"https://c-ddddd.c.ns.svc:2380"};
  auto l = admin::plan_member(s, req(admin::MemberOp::Replace, "c-ccccc"));
  CHECK(l.not_found.empty());
  CHECK_FALSE(l.refused());
  CHECK(l.resume);

  // Nothing being added and no gap: that target does not exist.
  CHECK_FALSE(admin::plan_member(converged_state(), req(admin::MemberOp::Replace, "c-zzzzz")).not_found.empty());
}
