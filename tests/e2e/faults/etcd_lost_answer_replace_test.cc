// A lost answer to etcd's own writes during `kubectl-etcd member replace
// --break-glass` of the leader
// (docs/server-faults.md#lost-answers-to-etcds-writes): etcd applied
// MoveLeader, MemberRemove, MemberAdd or MemberPromote, but the connection
// dropped before its answer reached the program
// (grpc_lost_answer_proxy.py). One uninterrupted run lists its writes; then
// for each a fresh cluster, the answer to its first call lost, and the same
// command again. The end state is the uninterrupted run's: the old leader
// gone from etcd and the EtcdMembers, one new member in its place, no
// learner left, the counts where they were.
#include "grpc_proxy_e2e.h"

using namespace grpc_e2e;

namespace {

e2e::CommandResult replace(const NativeCluster& c, const std::string& target) {
  return member_e2e::member(c, {"replace", target});
}

}  // namespace

TEST_CASE("member replace --break-glass of the leader: the answer to each of etcd's writes lost, then again") {
  std::vector<std::string> writes;
  End want;
  {
    NativeCluster c(plaintext_fixture());
    const std::string work = faults_e2e::tmpdir("e2e-grpc-replace-0");
    GrpcProxy proxy(c, work);
    const std::string target = faults_e2e::leader_of(c);
    auto r = replace(c, target);
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    writes = proxy.methods();
    MESSAGE("W = " << writes.size() << " writes; the calls: " << proxy.calls_line());
    want = end_state(c);
    CHECK(want == End{3, 3, 0, true, want.counts});
    CHECK(e2e::kubectl_result({"-n", c.ns(), "get", "etcdmember", target}).rc != 0);
    member_e2e::check_clean(c, "uninterrupted replace");
    e2e::run({"rm", "-rf", work});
  }
  // The leadership moves off the target, the target leaves, then the new
  // member joins into the gap (docs/break-glass-design.md: replace removes first).
  REQUIRE(writes == std::vector<std::string>{"MoveLeader", "MemberRemove", "MemberAdd", "MemberPromote"});
  for (const auto& lost : writes) {
    CAPTURE(lost);
    NativeCluster c(plaintext_fixture());
    const std::string target = faults_e2e::leader_of(c);
    const std::string work = faults_e2e::tmpdir("e2e-grpc-replace-" + lost);
    GrpcProxy proxy(c, work, lost);
    auto first = replace(c, target);
    MESSAGE(lost << ": " << proxy.cut() << "; first run rc " << first.rc << ": " << last_line(first.err));
    INFO("first run: " << first.err);
    REQUIRE_FALSE(proxy.cut().empty());
    auto again = replace(c, target);
    INFO("re-run: " << again.out << again.err);
    // After a finished first run the target is gone: nothing to replace (6).
    CHECK((again.rc == 0 || (first.rc == 0 && again.rc == 6)));
    CHECK(end_state(c) == want);
    CHECK(e2e::kubectl_result({"-n", c.ns(), "get", "etcdmember", target}).rc != 0);
    member_e2e::check_clean(c, "after the lost answer to " + lost);
    e2e::run({"rm", "-rf", work});
  }
}
