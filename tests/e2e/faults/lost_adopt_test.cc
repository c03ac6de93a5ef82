// A lost answer (docs/server-faults.md#lost-answers) in `etcd-migrate adopt
// --apply` of a 3-member TLS + auth legacy cluster with a PDB, the safety
// backup to a directory: one uninterrupted run through fault_proxy.py counts
// its writes W; then for every N in 1..W (of a kind not seen before:
// lost_matrix.h) a fresh cluster, the answer to write N lost, the run fails
// or retries as it chooses, and the same command again. Each time the end
// state is the uninterrupted run's: the same object graph (uids, versions
// and times masked), the cluster and member IDs and pod UIDs of before,
// every key a writer put meanwhile, and `verify` passing.
#include "lost_matrix.h"

using namespace faults_e2e;

TEST_CASE("adopt --apply: the answer to each write lost, then the same command again") {
  std::vector<std::string> kinds;  // of each write, by number
  std::string expected;
  {
    e2e::Namespace ns("e2e-lost-adopt");
    e2e::LegacyFixture f(ns.name(), "etcd", adopt_fixture());
    e2e::Before before = e2e::record(f);
    e2e::Writer writer(f);
    const std::string work = tmpdir("e2e-lost-adopt-0");
    FaultProxy proxy(work, FaultProxy::lose(0));
    auto r = e2e::run(adopt_args(f, proxy.kubeconfig(), e2e::backup_dir(f)), {{"NO_COLOR", "1"}});
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    kinds = write_kinds(proxy);
    check_converged(f, before, writer);
    expected = e2e::graph(f);
    e2e::run({"rm", "-rf", work});
  }
  const std::vector<int> cases = lost_cases(kinds);
  MESSAGE("W = " << kinds.size() << " mutating requests, " << cases.size() << " cases (one per kind, or LOST_ALL/LOST_N)");
  REQUIRE(kinds.size() >= 10);
  lost_matrix(cases, 4, [&](int n) {
    e2e::Namespace ns("e2e-lost-adopt");
    e2e::LegacyFixture f(ns.name(), "etcd", adopt_fixture());
    e2e::Before before = e2e::record(f);
    e2e::Writer writer(f);
    const std::string work = tmpdir("e2e-lost-adopt-" + std::to_string(n));
    const std::string bdir = e2e::backup_dir(f);
    FaultProxy proxy(work, FaultProxy::lose(n));
    auto first = e2e::run(adopt_args(f, proxy.kubeconfig(), bdir), {{"NO_COLOR", "1"}});
    const std::string lost = lost_line(proxy);
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc);
    CHECK_MESSAGE(!lost.empty(), "N = " << n);
    auto again = e2e::apply(f, {"--backup-dir", bdir});
    MESSAGE("N = " << n << ": re-run rc " << again.rc);
    CHECK_MESSAGE(again.rc == 0, "N = " << n << ": first run: " << first.out << first.err << "\nre-run: " << again.out
                                        << again.err);
    check_converged(f, before, writer);
    const std::string got = e2e::graph(f);
    if (got != expected) {
      std::ofstream(e2e::var("TESTENV_DIR") + "/lost-adopt-graph-" + std::to_string(n) + ".json") << got;
      std::ofstream(e2e::var("TESTENV_DIR") + "/lost-adopt-graph-expected.json") << expected;
    }
    CHECK_MESSAGE(got == expected, "N = " << n << " (" << lost << "): graphs in $TESTENV_DIR/lost-adopt-graph-*.json");
    e2e::run({"rm", "-rf", work});
  });
}
