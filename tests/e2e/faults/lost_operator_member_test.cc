// A lost answer (docs/server-faults.md#lost-answers) in the operator-mediated
// `kubectl-etcd member add --wait` and `member remove --wait` of a
// follower: the tool asks, the real operator does the etcd work. One
// uninterrupted run through fault_proxy.py (an add, then a remove of the
// youngest follower, on one cluster) counts the writes of each; then for
// each case (one per kind of write: lost_matrix.h) a fresh cluster, the
// answer to the add's write N lost, the same command again if the first run
// did not finish, then the same for the remove's write N. Each time the end
// state after each command is the uninterrupted run's: one member more
// after the add (never two), the removed member gone and its gap filled
// once after the remove, the other members keeping their etcd IDs, the
// object graph the same, `check` clean and a key put before still there.
//
// An add and a remove share a cluster: the operator's bootstrap is most of
// a case's time.
#include <sstream>

#include "lost_operator.h"

using namespace faults_e2e;

namespace {

std::unique_ptr<e2e::OperatorCluster> cluster() {
  auto c = std::make_unique<e2e::OperatorCluster>("e2e-lostopmember", e2e::OperatorCluster::Options{});
  REQUIRE(c->etcdctl({"put", "/lost-answer/marker", c->ns()}).rc == 0);
  return c;
}

e2e::CommandResult member(const e2e::OperatorCluster& c, std::vector<std::string> args, const std::string& kubeconfig) {
  std::vector<std::string> argv{e2e::kubectl_etcd_path(), "member"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"-c", c.name(), "-n", c.ns(), "--connect", "direct", "--operator", c.deployment(), "--wait",
                           "--yes", "--timeout", "4m"});
  return e2e::run(argv, {{"KUBECONFIG", kubeconfig}, {"NO_COLOR", "1"}});
}

struct End {
  std::size_t members = 0;  // EtcdMembers
  int learners = 0;         // etcd's learners
  bool ids_kept = false;    // the members before the command keep their etcd IDs (the removed one aside)
  std::string mismatch;     // OperatorCluster::membership_mismatch
  json graph;
  bool operator==(const End& o) const {
    return members == o.members && learners == o.learners && ids_kept == o.ids_kept && mismatch == o.mismatch &&
           graph == o.graph;
  }
};

std::ostream& operator<<(std::ostream& os, const End& e) {
  return os << e.members << " members (" << e.learners << " learners), IDs kept " << e.ids_kept << ", mismatch ["
            << e.mismatch << "], " << e.graph.size() << " objects";
}

// The end state once the operator reports the cluster converged; `before`:
// the etcd IDs before the command, `gone`: the member it removed (none for
// an add).
End settle(const e2e::OperatorCluster& c, const std::map<std::string, std::string>& before, const std::string& gone,
           const std::string& where) {
  c.wait_converged(where + ": the operator to report the cluster converged");
  End e;
  e.members = c.members().size();
  for (const auto& m : c.etcd_members()) e.learners += m.value("isLearner", false) ? 1 : 0;
  const auto ids = c.etcd_ids();
  e.ids_kept = true;
  for (const auto& [name, id] : before) {
    if (name == gone) {
      e.ids_kept = e.ids_kept && ids.count(name) == 0;
      for (const auto& [n, i] : ids) e.ids_kept = e.ids_kept && i != id;
    } else {
      e.ids_kept = e.ids_kept && ids.count(name) == 1 && ids.at(name) == id;
    }
  }
  e.mismatch = c.membership_mismatch();
  // Names are generated: each member by its place in age.
  const auto aged = members_by_age(c);
  std::map<std::string, std::string> names{{c.ns(), "<ns>"}};
  for (std::size_t i = 0; i < aged.size(); ++i) names[aged[i]] = "<member" + std::to_string(i) + ">";
  if (!gone.empty()) names[gone] = "<removed>";
  e.graph = object_graph(c.ns(), operator_kinds(), names);
  c.check_clean(where);
  auto marker = c.etcdctl({"get", "/lost-answer/marker", "--print-value-only"});
  CHECK_MESSAGE(marker.out.find(c.ns()) != std::string::npos, where << ": " << marker.out << marker.err);
  return e;
}

// One command with the answer to its write `n` lost (0: none, it counts),
// again if the first run did not finish; its end state.
End run_lost(const e2e::OperatorCluster& c, const std::vector<std::string>& args, int n, const std::string& work,
             const std::string& gone, std::vector<std::string>* kinds) {
  const auto before = c.etcd_ids();
  const std::string where = args[0] + (n == 0 ? " uninterrupted" : " N = " + std::to_string(n));
  FaultProxy proxy(work, FaultProxy::lose(n));
  auto first = member(c, args, proxy.kubeconfig());
  if (n == 0) {
    INFO(where << ": " << first.out << first.err);
    REQUIRE(first.rc == 0);
    *kinds = write_kinds(proxy);
  } else {
    const std::string lost = lost_line(proxy);
    MESSAGE(where << ": " << lost << "; first run rc " << first.rc << ": " << first.err);
    CHECK_MESSAGE(!lost.empty(), where);
    if (first.rc != 0) {
      // A finished add or remove is not repeated: it would be another one.
      auto again = member(c, args, e2e::var("KUBECONFIG"));
      MESSAGE(where << ": re-run rc " << again.rc << ": " << again.err);
      CHECK_MESSAGE(again.rc == 0, where << ": re-run: " << again.out << again.err);
    }
  }
  return settle(c, before, gone, where);
}

}  // namespace

TEST_CASE("member add --wait and remove --wait (operator-mediated): the answer to each write lost, then again") {
  const auto t0 = Clock::now();
  Prepared<e2e::OperatorCluster> ahead(1, cluster);
  std::vector<std::string> add_kinds, remove_kinds;
  End added, removed;
  {
    auto c = cluster();
    const std::string work = tmpdir("e2e-lost-opmember-0");
    added = run_lost(*c, {"add"}, 0, work + "/add", "", &add_kinds);
    const std::string victim = youngest_follower(*c);
    removed = run_lost(*c, {"remove", victim}, 0, work + "/remove", victim, &remove_kinds);
    e2e::run({"rm", "-rf", work});
  }
  const std::vector<int> add_cases = lost_cases(add_kinds), remove_cases = lost_cases(remove_kinds);
  MESSAGE("add: W = " << add_kinds.size() << ", " << add_cases.size() << " cases, end state " << added
                      << "; remove: W = " << remove_kinds.size() << ", " << remove_cases.size() << " cases, end state "
                      << removed << "; " << seconds_since(t0) << " s so far");
  CHECK(added.members == 4);
  CHECK(removed.members == 4);
  for (const End* e : {&added, &removed}) {
    CHECK(e->learners == 0);
    CHECK(e->ids_kept);
    CHECK(e->mismatch == "");
  }
  REQUIRE_FALSE(add_cases.empty());
  REQUIRE_FALSE(remove_cases.empty());
  // Case i loses the add's i-th case and the remove's i-th case, on one
  // cluster (the shorter list runs its command uninterrupted after its end).
  std::vector<int> cases;
  for (std::size_t i = 0; i < std::max(add_cases.size(), remove_cases.size()); ++i) cases.push_back(static_cast<int>(i));
  lost_matrix(cases, 2, [&](int i) {
    auto c = ahead.take();
    const std::string work = tmpdir("e2e-lost-opmember-" + std::to_string(i + 1));
    const std::size_t k = static_cast<std::size_t>(i);
    std::vector<std::string> unused;
    const int add_n = k < add_cases.size() ? add_cases[k] : 0;
    const End got_add = run_lost(*c, {"add"}, add_n, work + "/add", "", &unused);
    CHECK_MESSAGE(got_add == added, "add N = " << add_n << ": " << got_add << "; uninterrupted: " << added
                                               << "; graph diff " << json::diff(added.graph, got_add.graph).dump());
    const std::string victim = youngest_follower(*c);
    const int remove_n = k < remove_cases.size() ? remove_cases[k] : 0;
    const End got_remove = run_lost(*c, {"remove", victim}, remove_n, work + "/remove", victim, &unused);
    CHECK_MESSAGE(got_remove == removed, "remove N = " << remove_n << ": " << got_remove << "; uninterrupted: " << removed
                                                       << "; graph diff " << json::diff(removed.graph, got_remove.graph).dump());
    e2e::run({"rm", "-rf", work});
  });
  MESSAGE("seconds: " << seconds_since(t0));
}
