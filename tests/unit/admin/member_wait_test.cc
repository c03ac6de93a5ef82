#include "admin/member_wait.h"

#include <doctest/doctest.h>

#include "fixtures.h"

using namespace admin_test;

namespace {

json ready(json m) {
  m["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "PodReady"}}});
  return m;
}

// Three members at rest as the operator leaves them after its status pass.
admin::LiveState at_rest() {
  admin::LiveState s = three_members(true);
  for (auto& m : s.members) m = ready(m);
  s.cluster["status"]["conditions"] = json::array({{{"type", "Progressing"}, {"status", "False"}, {"reason", "Reconciled"}}});
  return s;
}

const std::vector<std::string> kBefore = {"c-aaaaa", "c-bbbbb", "c-ccccc"};

// at_rest() grown by the operator to four: c-ddddd, ID 4, in every state it passes through.
admin::LiveState grown() {
  admin::LiveState s = at_rest();
  s.cluster["spec"]["replicas"] = 4;
  s.cluster["status"]["observed"]["replicas"] = 4;
  s.cluster["status"]["readyMembers"] = 4;
  s.members.push_back(ready(with_member_finalizer(member("c-ddddd", "0000000000000004"))));
  s.pods.push_back(pod("c-ddddd", "10.0.0.4"));
  s.etcd.members.push_back(etcd_member(4, "c-ddddd"));
  s.healthy.insert(4);
  return s;
}

bool waits_on(const admin::WaitVerdict& v, const std::string& text) {
  INFO(v.text);
  return !v.done && v.text.find(text) != std::string::npos;
}

}  // namespace

TEST_CASE("settled: the operator's added member is reported once it is a Ready, marked voter") {
  auto v = admin::judge_settled(grown(), 4, kBefore);
  CHECK(v.done);
  CHECK(v.member == "c-ddddd");
  CHECK(v.id == 4);
  CHECK(v.text.find("4 Ready voters") != std::string::npos);
}

TEST_CASE("settled: every state the operator passes through on its way is not done yet") {
  // Right after the spec patch: the operator has not adopted it.
  auto s = at_rest();
  s.cluster["spec"]["replicas"] = 4;
  CHECK(waits_on(admin::judge_settled(s, 4, kBefore), "not adopted"));
  // Adopted, nothing created yet.
  s.cluster["status"]["observed"]["replicas"] = 4;
  CHECK(waits_on(admin::judge_settled(s, 4, kBefore), "3 of 4 EtcdMembers"));
  // Created, not wired.
  auto pending = with_member_finalizer(member("c-ddddd", ""));
  pending["spec"]["initialCluster"] = "";
  s.members.push_back(pending);
  CHECK(waits_on(admin::judge_settled(s, 4, kBefore), "pending"));
  // A learner with a Ready Pod and a memberID: not promoted.
  auto learner = grown();
  learner.etcd.members.back().is_learner = true;
  learner.members[3]["status"]["isVoter"] = false;
  CHECK(waits_on(admin::judge_settled(learner, 4, kBefore), "is a learner"));
  // Promoted in etcd, isVoter not synced yet (the next pass does it).
  auto unmarked = grown();
  unmarked.members[3]["status"]["isVoter"] = false;
  CHECK(waits_on(admin::judge_settled(unmarked, 4, kBefore), "not marked a voter"));
  // Marked, the Pod's role label not yet.
  auto unlabelled = grown();
  unlabelled.pods[3]["metadata"]["labels"] = json::object();
  CHECK(waits_on(admin::judge_settled(unlabelled, 4, kBefore), "voter label"));
  // Everything but the cluster's status pass.
  auto stale = grown();
  stale.cluster["status"]["readyMembers"] = 3;
  CHECK(waits_on(admin::judge_settled(stale, 4, kBefore), "readyMembers 3"));
  auto progressing = grown();
  progressing.cluster["status"]["conditions"][0] = {{"type", "Progressing"}, {"status", "True"}, {"reason", "SpecChanged"}};
  CHECK(waits_on(admin::judge_settled(progressing, 4, kBefore), "Progressing True/SpecChanged"));
  // A member that does not answer, one not Ready, one without a memberID etcd lists.
  auto silent = grown();
  silent.healthy.erase(2);
  CHECK(waits_on(admin::judge_settled(silent, 4, kBefore), "c-bbbbb does not answer"));
  CHECK(admin::judge_settled(silent, 4, kBefore).cause.empty());
  // The error its Status got is the cause the wait prints once.
  silent.dial_errors[2] = "Peer name c-bbbbb.c.ns.svc is not in peer certificate";
  auto why = admin::judge_settled(silent, 4, kBefore);
  CHECK(why.text == "etcd member c-bbbbb does not answer Status");
  CHECK(why.cause == "Peer name c-bbbbb.c.ns.svc is not in peer certificate");
  auto notready = grown();
  notready.members[1]["status"]["conditions"][0] = {{"type", "Ready"}, {"status", "False"}, {"reason", "PodNotReady"}};
  CHECK(waits_on(admin::judge_settled(notready, 4, kBefore), "c-bbbbb is not Ready (PodNotReady)"));
  auto noid = grown();
  noid.members[3]["status"]["memberID"] = "";
  CHECK(waits_on(admin::judge_settled(noid, 4, kBefore), "no memberID"));
}

TEST_CASE("settled: a stray voter, a Terminating member, a changed spec and no quorum are not at rest") {
  auto stray = grown();
  stray.etcd.members.push_back(etcd_member(9, "stray"));
  CHECK(waits_on(admin::judge_settled(stray, 4, kBefore), "etcd lists 5 members"));
  auto term = grown();
  term.members[0]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK(waits_on(admin::judge_settled(term, 4, kBefore), "c-aaaaa is Terminating"));
  auto other = grown();
  other.cluster["spec"]["replicas"] = 5;
  CHECK(waits_on(admin::judge_settled(other, 4, kBefore), "someone else"));
  auto lost = grown();
  lost.etcd_error = "context deadline exceeded";
  CHECK(waits_on(admin::judge_settled(lost, 4, kBefore), "no linearizable MemberList"));
  // At rest with the same members as before: done, nothing new to report.
  auto same = admin::judge_settled(at_rest(), 3, kBefore);
  CHECK(same.done);
  CHECK(same.member.empty());
}

TEST_CASE("removed: etcd must list neither the ID, the name nor the URL, and the EtcdMember must be gone") {
  auto s = at_rest();
  CHECK(waits_on(admin::judge_removed(s, "c-ccccc", 3, "https://c-ccccc.c.ns.svc:2380"), "etcd still lists c-ccccc"));
  // Out of etcd, the EtcdMember still Terminating while its finalizer runs.
  s.etcd.members.pop_back();
  s.members[2]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  CHECK(waits_on(admin::judge_removed(s, "c-ccccc", 3, "https://c-ccccc.c.ns.svc:2380"), "still exists"));
  s.members.erase(2);
  auto v = admin::judge_removed(s, "c-ccccc", 3, "https://c-ccccc.c.ns.svc:2380");
  CHECK(v.done);
  // Listed under the same URL with another ID (re-added by hand): still there.
  auto readded = at_rest();
  readded.etcd.members[2].id = 30;
  readded.etcd.members[2].name = "";
  readded.members.erase(2);
  CHECK_FALSE(admin::judge_removed(readded, "c-ccccc", 3, "https://c-ccccc.c.ns.svc:2380").done);
}
