// A lost answer to etcd's own writes during `kubectl-etcd member add
// --break-glass` (docs/server-faults.md#lost-answers-to-etcds-writes): etcd
// applied MemberAdd or MemberPromote, but the connection dropped before its
// answer reached the program (grpc_lost_answer_proxy.py). One uninterrupted
// run lists its writes; then for each a fresh cluster, the answer to its
// first call lost. The client retries the call on another member,
// which refuses it as done (the member exists, it is no learner any more):
// the run reads the membership, finds its write done and finishes. Should
// it fail, the same command again must finish it. Either way the end state
// is the uninterrupted run's: one member more, no learner left, no member
// added twice.
#include "grpc_proxy_e2e.h"

using namespace grpc_e2e;

TEST_CASE("member add --break-glass: the answer to each of etcd's writes lost") {
  std::vector<std::string> writes;
  End want;
  {
    NativeCluster c(plaintext_fixture());
    const std::string work = faults_e2e::tmpdir("e2e-grpc-add-0");
    GrpcProxy proxy(c, work);
    auto r = member_e2e::member(c, {"add"});
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    writes = proxy.methods();
    MESSAGE("W = " << writes.size() << " writes; the calls: " << proxy.calls_line());
    want = end_state(c);
    CHECK(want == End{4, 4, 0, true, want.counts});
    member_e2e::check_clean(c, "uninterrupted add");
    e2e::run({"rm", "-rf", work});
  }
  REQUIRE(writes == std::vector<std::string>{"MemberAdd", "MemberPromote"});
  for (const auto& lost : writes) {
    CAPTURE(lost);
    NativeCluster c(plaintext_fixture());
    const std::string work = faults_e2e::tmpdir("e2e-grpc-add-" + lost);
    GrpcProxy proxy(c, work, lost);
    auto first = member_e2e::member(c, {"add"});
    MESSAGE(lost << ": " << proxy.cut() << "; first run rc " << first.rc << ": " << last_line(first.err));
    INFO("first run: " << first.err);
    REQUIRE_FALSE(proxy.cut().empty());
    CHECK(first.rc == 0);
    if (first.rc != 0) {
      // A finished add is not repeated: the same command again would add another member.
      auto again = member_e2e::member(c, {"add"});
      INFO("re-run: " << again.out << again.err);
      CHECK(again.rc == 0);
    }
    CHECK(end_state(c) == want);
    member_e2e::check_clean(c, "after the lost answer to " + lost);
    e2e::run({"rm", "-rf", work});
  }
}
