// A lost answer to etcd's own writes during `kubectl-etcd member remove
// --break-glass --scale-down` of the leader
// (docs/server-faults.md#lost-answers-to-etcds-writes): etcd applied
// MoveLeader or MemberRemove, but the connection dropped before its answer
// reached the program (grpc_lost_answer_proxy.py). One uninterrupted run
// lists its writes; then for each a fresh cluster, the answer to its first
// call lost, and the same command again. The lost MemberRemove is
// retried by the client on another member and found done; the lost
// MoveLeader is found done by the transferee's Status. The end state is the
// uninterrupted run's: the member gone from etcd and the EtcdMembers, the
// counts down by one, once.
#include "grpc_proxy_e2e.h"

using namespace grpc_e2e;

namespace {

e2e::CommandResult remove(const NativeCluster& c, const std::string& target) {
  return member_e2e::member(c, {"remove", target, "--scale-down"});
}

}  // namespace

TEST_CASE("member remove --break-glass of the leader: the answer to each of etcd's writes lost, then again") {
  std::vector<std::string> writes;
  End want;
  {
    NativeCluster c(plaintext_fixture());
    const std::string work = faults_e2e::tmpdir("e2e-grpc-remove-0");
    GrpcProxy proxy(c, work);
    auto r = remove(c, faults_e2e::leader_of(c));
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    writes = proxy.methods();
    MESSAGE("W = " << writes.size() << " writes; the calls: " << proxy.calls_line());
    want = end_state(c);
    CHECK(want == End{2, 2, 0, true, "2/2/2"});
    member_e2e::check_clean(c, "uninterrupted remove");
    e2e::run({"rm", "-rf", work});
  }
  REQUIRE(writes == std::vector<std::string>{"MoveLeader", "MemberRemove"});
  for (const auto& lost : writes) {
    CAPTURE(lost);
    NativeCluster c(plaintext_fixture());
    const std::string target = faults_e2e::leader_of(c);
    const std::string work = faults_e2e::tmpdir("e2e-grpc-remove-" + lost);
    GrpcProxy proxy(c, work, lost);
    auto first = remove(c, target);
    MESSAGE(lost << ": " << proxy.cut() << "; first run rc " << first.rc << ": " << last_line(first.err));
    INFO("first run: " << first.err);
    REQUIRE_FALSE(proxy.cut().empty());
    CHECK(first.rc == 0);
    auto again = remove(c, target);
    INFO("re-run: " << again.out << again.err);
    // After a finished first run nothing is left to remove: the re-run says so (6).
    CHECK((again.rc == 0 || (first.rc == 0 && again.rc == 6)));
    CHECK(end_state(c) == want);
    member_e2e::check_clean(c, "after the lost answer to " + lost);
    e2e::run({"rm", "-rf", work});
  }
}
