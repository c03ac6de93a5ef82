// A lost answer (docs/server-faults.md#lost-answers) in `kubectl-etcd member
// replace --break-glass` of a follower of a 3-member native fixture: one
// uninterrupted run through fault_proxy.py counts its writes W; then for
// every N in 1..W (of a kind not seen before: lost_matrix.h) a fresh
// cluster, the answer to write N lost, then the same command again. Each
// time the end state is the uninterrupted run's: the target gone from etcd
// and the EtcdMembers, one new member in its place, no learner left, the
// counts where they were, the other members and their IDs kept, `check`
// clean and a key put before still there.
#include "lost_member.h"

using namespace faults_e2e;

TEST_CASE("member replace --break-glass: the answer to each write lost, then the same command again") {
  const Uninterrupted u = uninterrupted("replace", [](const NativeCluster& c) { return std::vector<std::string>{"replace", follower(c)}; });
  const std::vector<std::string>& kinds = u.kinds;
  const MemberEnd& expected = u.end;
  const std::vector<int> cases = lost_cases(kinds);
  CHECK(expected.etcd == 3);
  CHECK(expected.others == 1);
  CHECK(expected.learners == 0);
  REQUIRE(kinds.size() >= 5);
  lost_matrix(cases, 4, [&](int n) {
    NativeCluster c(member_e2e::runner_fixture("3.6", 3));
    put_marker(c);
    const std::string target = follower(c);
    const std::string work = tmpdir("e2e-lost-replace-" + std::to_string(n));
    FaultProxy proxy(work, FaultProxy::lose(n));
    auto first = member_via(c, {"replace", target}, proxy.kubeconfig());
    const std::string lost = lost_line(proxy);
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc << ": " << first.err);
    CHECK_MESSAGE(!lost.empty(), "N = " << n);
    auto again = member_via(c, {"replace", target}, "");
    MESSAGE("N = " << n << ": re-run rc " << again.rc);
    // After a replace that finished, the target is gone: nothing to replace (6).
    CHECK_MESSAGE((again.rc == 0 || (first.rc == 0 && again.rc == 6)),
                  "N = " << n << ": re-run: " << again.out << again.err);
    const MemberEnd got = member_end(c);
    CHECK_MESSAGE(got == expected, "N = " << n << " (" << lost << "): " << got << "; uninterrupted: " << expected);
    CHECK(e2e::kubectl_result({"-n", c.ns(), "get", "etcdmember", target}).rc != 0);
    member_e2e::check_clean(c, "N = " + std::to_string(n));
    check_marker(c);
    e2e::run({"rm", "-rf", work});
  });
}
