// A lost answer (docs/server-faults.md#lost-answers) in `kubectl-etcd member
// add --break-glass` on a 3-member native fixture: one uninterrupted run
// through fault_proxy.py counts its writes W; then for every N in 1..W (of a
// kind not seen before: lost_matrix.h) a fresh cluster, the answer to write
// N lost, and the same command again when the first run did not finish
// (after a finished add the same command is a new add). Each time the end
// state is the uninterrupted run's: one member more in etcd and in the
// EtcdMembers, no learner left, every EtcdMember a voter, the counts raised
// once, the fixture's members and their IDs kept, `check` clean and a key
// put before still there.
#include "lost_member.h"

using namespace faults_e2e;

TEST_CASE("member add --break-glass: the answer to each write lost, then the same command again") {
  const Uninterrupted u = uninterrupted("add", [](const NativeCluster&) { return std::vector<std::string>{"add"}; });
  const std::vector<std::string>& kinds = u.kinds;
  const MemberEnd& expected = u.end;
  const std::vector<int> cases = lost_cases(kinds);
  CHECK(expected.etcd == 4);
  CHECK(expected.others == 1);
  CHECK(expected.learners == 0);
  REQUIRE(kinds.size() >= 5);
  lost_matrix(cases, 4, [&](int n) {
    NativeCluster c(member_e2e::runner_fixture("3.6", 3));
    put_marker(c);
    const std::string work = tmpdir("e2e-lost-add-" + std::to_string(n));
    FaultProxy proxy(work, FaultProxy::lose(n));
    auto first = member_via(c, {"add"}, proxy.kubeconfig());
    const std::string lost = lost_line(proxy);
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc << ": " << first.err);
    CHECK_MESSAGE(!lost.empty(), "N = " << n);
    if (first.rc != 0) {
      auto again = member_via(c, {"add"}, "");
      MESSAGE("N = " << n << ": re-run rc " << again.rc);
      CHECK_MESSAGE(again.rc == 0, "N = " << n << ": re-run: " << again.out << again.err);
    }
    const MemberEnd got = member_end(c);
    CHECK_MESSAGE(got == expected, "N = " << n << " (" << lost << "): " << got << "; uninterrupted: " << expected);
    member_e2e::check_clean(c, "N = " + std::to_string(n));
    check_marker(c);
    e2e::run({"rm", "-rf", work});
  });
}
