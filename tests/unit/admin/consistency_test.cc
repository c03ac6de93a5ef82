#include "admin/consistency.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "fixtures.h"

using namespace admin_test;

namespace {

admin::ConsistencyInput converged() {
  admin::ConsistencyInput in;
  in.cluster = cluster();
  in.members = json::array({member("c-aaaaa", "0000000000000001"), member("c-bbbbb", "0000000000000002"),
                            member("c-ccccc", "0000000000000003")});
  in.pods = json::array({pod("c-aaaaa", "10.0.0.1"), pod("c-bbbbb", "10.0.0.2"), pod("c-ccccc", "10.0.0.3")});
  in.etcd.members = {etcd_member(1, "c-aaaaa"), etcd_member(2, "c-bbbbb"), etcd_member(3, "c-ccccc")};
  return in;
}

std::vector<std::string> codes(const std::vector<admin::Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.code);
  return out;
}

const admin::Finding* find(const std::vector<admin::Finding>& fs, const std::string& code) {
  for (const auto& f : fs) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a converged cluster has no findings") { CHECK(admin::check_consistency(converged()).empty()); }

TEST_CASE("an EtcdMember whose memberID etcd does not know is a ghost") {
  auto in = converged();
  in.etcd.members.pop_back();
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"GHOST_MEMBER"});
  CHECK(fs[0].member == "c-ccccc");
  CHECK(fs[0].id == 3);
  CHECK(fs[0].severity == admin::Severity::Error);
}

TEST_CASE("a ghost that is terminating says its finalizer will retry forever") {
  auto in = converged();
  in.etcd.members.pop_back();
  in.members[2]["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  auto fs = admin::check_consistency(in);
  REQUIRE(find(fs, "GHOST_MEMBER"));
  CHECK(find(fs, "GHOST_MEMBER")->message.find("forever") != std::string::npos);
  REQUIRE(find(fs, "TERMINATING_MEMBER"));
  CHECK(find(fs, "TERMINATING_MEMBER")->severity == admin::Severity::Transient);
}

TEST_CASE("an etcd learner without an EtcdMember is an orphan learner") {
  auto in = converged();
  auto l = etcd_member(9, "", true);
  l.peer_urls = {"https://somewhere:2380"};
  in.etcd.members.push_back(l);
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"ORPHAN_LEARNER"});
  CHECK(fs[0].id == 9);
  CHECK(fs[0].member == "https://somewhere:2380");
}

TEST_CASE("an etcd voter without an EtcdMember is a stray voter") {
  auto in = converged();
  in.etcd.members.push_back(etcd_member(7, "stray"));
  CHECK(codes(admin::check_consistency(in)) == std::vector<std::string>{"STRAY_VOTER"});
}

TEST_CASE("two learners are reported besides the orphans") {
  auto in = converged();
  in.etcd.members.push_back(etcd_member(7, "x", true));
  in.etcd.members.push_back(etcd_member(8, "y", true));
  auto fs = admin::check_consistency(in);
  CHECK(find(fs, "MULTIPLE_LEARNERS"));
  auto cs = codes(fs);
  CHECK(std::count(cs.begin(), cs.end(), "ORPHAN_LEARNER") == 2);
}

TEST_CASE("isVoter false on a voter is a mismatch, and the role label then disagrees too") {
  auto in = converged();
  in.members[1]["status"]["isVoter"] = false;
  auto fs = admin::check_consistency(in);
  CHECK(codes(fs) == std::vector<std::string>{"ISVOTER_MISMATCH", "ROLE_LABEL_MISMATCH"});
  CHECK(fs[0].member == "c-bbbbb");
}

TEST_CASE("a voter's pod without the role label") {
  auto in = converged();
  in.pods[0]["metadata"]["labels"] = json::object();
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"ROLE_LABEL_MISMATCH"});
  CHECK(fs[0].message.find("lacks") != std::string::npos);
}

TEST_CASE("a learner whose EtcdMember says voter") {
  auto in = converged();
  in.etcd.members[2].is_learner = true;
  auto fs = admin::check_consistency(in);
  // The pod keeps its voter label while status.isVoter is (wrongly) true:
  // only isVoter disagrees with etcd.
  CHECK(codes(fs) == std::vector<std::string>{"ISVOTER_MISMATCH"});
  CHECK(fs[0].message == "status.isVoter is true but etcd lists a learner");
}

TEST_CASE("a member matched by name whose stored ID differs") {
  auto in = converged();
  in.members[0]["status"]["memberID"] = "00000000000000ff";
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"MEMBERID_MISMATCH"});
  CHECK(fs[0].id == 1);
}

TEST_CASE("a member not started yet is matched by its peer URL") {
  auto in = converged();
  in.etcd.members[2].name.clear();
  CHECK(admin::check_consistency(in).empty());
}

TEST_CASE("a pending EtcdMember is transient, not a ghost") {
  auto in = converged();
  auto p = member("c-ddddd", "");
  p["spec"]["initialCluster"] = "";
  p["status"] = json::object();
  in.members.push_back(p);
  in.cluster["spec"]["replicas"] = 4;
  in.cluster["status"]["observed"]["replicas"] = 4;
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"PENDING_MEMBER"});
  CHECK(fs[0].severity == admin::Severity::Transient);
}

TEST_CASE("replicas: spec differs from observed -> transient; observed differs from running -> error") {
  auto in = converged();
  for (auto& m : in.members) m["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
  in.cluster["spec"]["replicas"] = 5;
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"REPLICAS_MISMATCH"});
  CHECK(fs[0].severity == admin::Severity::Transient);
  CHECK(fs[0].message == "spec.replicas 5, status.observed.replicas 3, running EtcdMembers 3");

  in = converged();
  in.members.erase(in.members.begin());
  in.etcd.members.erase(in.etcd.members.begin());
  in.pods.erase(in.pods.begin());
  fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"REPLICAS_MISMATCH"});
  CHECK(fs[0].severity == admin::Severity::Error);
}

TEST_CASE("replicas: a spec change a not-Ready member holds back is an error naming it") {
  // The operator adopts spec only once every running member is Ready; until
  // then Progressing stays False/Reconciled and nothing is in flight.
  auto in = converged();
  for (auto& m : in.members) m["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
  in.members[1]["status"]["conditions"][0]["status"] = "False";
  in.cluster["spec"]["replicas"] = 4;
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"REPLICAS_MISMATCH"});
  CHECK(fs[0].severity == admin::Severity::Error);
  CHECK(fs[0].message.find("c-bbbbb is not") != std::string::npos);
  // Once taken up (a progressDeadline runs) the operator waits within a bound: transient.
  in.cluster["status"]["progressDeadline"] = "2099-01-01T00:00:00Z";
  fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"REPLICAS_MISMATCH"});
  CHECK(fs[0].severity == admin::Severity::Transient);
}

TEST_CASE("a dormant member is transient and not running") {
  auto in = converged();
  in.members[0]["spec"]["dormant"] = true;
  auto fs = admin::check_consistency(in);
  CHECK(find(fs, "DORMANT_MEMBER"));
  CHECK(find(fs, "REPLICAS_MISMATCH"));
}

TEST_CASE("a pod rendered by hand") {
  auto in = converged();
  in.pods[1]["metadata"]["annotations"] = {{"cli.etcd-operator.cozystack.io/rendered-by", "kubectl-etcd/0.1.0"}};
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"HAND_RENDERED_POD"});
  CHECK(fs[0].member == "c-bbbbb");
}

TEST_CASE("the deadline: a DeadlineExceeded condition, or a progressDeadline in the past") {
  auto in = converged();
  in.cluster["status"]["conditions"] =
      json::array({{{"type", "Progressing"}, {"status", "False"}, {"reason", "DeadlineExceeded"}}});
  CHECK(codes(admin::check_consistency(in)) == std::vector<std::string>{"DEADLINE_EXCEEDED"});

  in = converged();
  in.cluster["status"]["progressDeadline"] = "2020-01-01T00:00:00Z";
  auto fs = admin::check_consistency(in);
  CHECK(find(fs, "DEADLINE_EXCEEDED"));
  in.cluster["status"]["progressDeadline"] = "2999-01-01T00:00:00Z";
  CHECK_FALSE(find(admin::check_consistency(in), "DEADLINE_EXCEEDED"));
}

TEST_CASE("the member DNS override annotation changes the peer URL matched") {
  auto in = converged();
  in.etcd.members[2].name.clear();
  in.etcd.members[2].peer_urls = {"https://c-ccccc.c-headless.ns.svc:2380"};
  CHECK(find(admin::check_consistency(in), "GHOST_MEMBER"));
  in.members[2]["metadata"]["annotations"] = {{"etcd-operator.cozystack.io/headless-service-name", "c-headless"}};
  CHECK(admin::check_consistency(in).empty());
}

TEST_CASE("an inactive operator is a finding; an unjudged one is not") {
  auto in = converged();
  CHECK(admin::check_consistency(in).empty());
  in.operator_state = admin::OperatorState{false, false, "no operator Deployment and no live leader Lease", ""};
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"OPERATOR_INACTIVE"});
  CHECK(fs[0].message.rfind("no operator Deployment", 0) == 0);
  CHECK(fs[0].message.find("looked at") == std::string::npos);
  in.operator_state->looked_at = "Deployment o/op and Lease o/l";
  CHECK(admin::check_consistency(in)[0].message.find("(looked at Deployment o/op and Lease o/l; --operator NS/NAME") !=
        std::string::npos);
  in.operator_state = admin::OperatorState{true, true, "unreadable", ""};
  CHECK(admin::check_consistency(in).empty());
}

TEST_CASE("finding JSON carries 16-hex-digit IDs and the severity name") {
  admin::Finding f{"GHOST_MEMBER", admin::Severity::Transient, "m", 0xab, "x"};
  auto j = admin::finding_json(f);
  CHECK(j.dump() == R"({"code":"GHOST_MEMBER","severity":"transient","member":"m","id":"00000000000000ab","message":"x"})");
}

TEST_CASE("a voter that cannot be dialled is a finding with the dial error; a learner or an unprobed member is not") {
  auto in = converged();
  CHECK(admin::check_consistency(in).empty());  // not probed: nothing said
  in.unreachable["c-bbbbb"] = "Peer name c-bbbbb.c.ns.svc is not in peer certificate";
  auto fs = admin::check_consistency(in);
  REQUIRE(codes(fs) == std::vector<std::string>{"UNREACHABLE_MEMBER"});
  CHECK(fs[0].severity == admin::Severity::Error);
  CHECK(fs[0].member == "c-bbbbb");
  CHECK(fs[0].id == 2);
  CHECK(fs[0].message == "voter cannot be dialled: Peer name c-bbbbb.c.ns.svc is not in peer certificate; it counts "
                         "for quorum, but clients cannot reach it");
  // Matched by peer URL when etcd has no name for it yet.
  in.etcd.members[1].name = "";
  in.etcd.members[1].peer_urls = {"https://c-bbbbb.c.ns.svc:2380"};
  CHECK(find(admin::check_consistency(in), "UNREACHABLE_MEMBER"));
  // A learner does not count for quorum; its add is the operator's business.
  in.etcd.members[1].is_learner = true;
  in.members[1]["status"]["isVoter"] = false;
  in.pods[1]["metadata"]["labels"].erase("etcd-operator.cozystack.io/role");
  CHECK_FALSE(find(admin::check_consistency(in), "UNREACHABLE_MEMBER"));
}

namespace {

// c-bbbbb's etcd container restarted `count` times and is not Ready.
admin::ConsistencyInput restarting(long long count, const std::string& reason = "Error") {
  auto in = converged();
  in.pods[1]["status"]["containerStatuses"] = json::array(
      {{{"name", "etcd"}, {"ready", false}, {"restartCount", count},
        {"state", {{"waiting", {{"reason", "CrashLoopBackOff"}}}}},
        {"lastState", {{"terminated", {{"reason", reason}, {"exitCode", 2}}}}}}});
  return in;
}

}  // namespace

TEST_CASE("a member whose etcd keeps restarting is reported; transient while an operator can replace it") {
  auto fs = admin::check_consistency(restarting(2));
  REQUIRE(codes(fs) == std::vector<std::string>{"RESTARTING_MEMBER"});
  CHECK(fs[0].member == "c-bbbbb");
  CHECK(fs[0].id == 2);
  CHECK(fs[0].severity == admin::Severity::Transient);
  CHECK(fs[0].message.find("restarted 2 times (last exit: Error, code 2; now CrashLoopBackOff)") != std::string::npos);
  CHECK(fs[0].message.find("restarts 5 times without becoming Ready") != std::string::npos);
}

TEST_CASE("a restarting member with no operator running, or killed for memory, is an error") {
  auto in = restarting(7);
  in.operator_state = admin::OperatorState{};
  in.operator_state->active = false;
  auto fs = admin::check_consistency(in);
  REQUIRE(find(fs, "RESTARTING_MEMBER"));
  CHECK(find(fs, "RESTARTING_MEMBER")->severity == admin::Severity::Error);
  CHECK(find(fs, "RESTARTING_MEMBER")->message.find("no operator runs") != std::string::npos);

  auto oom = admin::check_consistency(restarting(7, "OOMKilled"));
  REQUIRE(find(oom, "RESTARTING_MEMBER"));
  CHECK(find(oom, "RESTARTING_MEMBER")->severity == admin::Severity::Error);
  CHECK(find(oom, "RESTARTING_MEMBER")->message.find("memory") != std::string::npos);
}

TEST_CASE("a member back and Ready after restarts, or a Pod being deleted, is not reported") {
  auto back = restarting(3);
  back.pods[1]["status"]["containerStatuses"][0]["ready"] = true;
  CHECK(admin::check_consistency(back).empty());
  auto deleting = restarting(3);
  deleting.pods[1]["metadata"]["deletionTimestamp"] = "2026-12-07T09:00:00Z";
  CHECK(admin::check_consistency(deleting).empty());
}
