// A lost answer (docs/server-faults.md#lost-answers) in `kubectl-etcd member
// roll` of a follower, operator-mediated: the real operator recreates the
// Pod the roll deletes. One uninterrupted run through fault_proxy.py counts
// the writes W; then for each N (one per kind: lost_matrix.h) a fresh
// cluster, the answer to write N lost, and the same command again when the
// first run did not finish (after a finished roll the same command is a new
// roll). Each time the end state is the uninterrupted run's: the follower's
// Pod replaced once (the pod runner started one etcd more for it), every
// member keeping its etcd ID, no rolling mark left, the object graph the
// same, `check` clean and a key put before still there.
//
// The first case's cluster is made while the uninterrupted run's is: the
// operator's bootstrap is most of a case's time.
#include <future>
#include <sstream>

#include "lost_operator.h"

using namespace faults_e2e;

namespace {

struct Rolled {
  std::unique_ptr<e2e::OperatorCluster> c;
  std::string target;
  std::map<std::string, std::string> ids;   // name -> etcd ID before
  std::map<std::string, std::string> pods;  // name -> Pod uid before
  std::vector<std::string> aged;            // the members by age

  Rolled() : c(std::make_unique<e2e::OperatorCluster>("e2e-lostroll", e2e::OperatorCluster::Options{})) {
    REQUIRE(c->etcdctl({"put", "/lost-answer/marker", c->ns()}).rc == 0);
    target = youngest_follower(*c);
    aged = members_by_age(*c);
    ids = c->etcd_ids();
    for (const auto& [name, id] : ids) {
      pods[name] = e2e::kubectl({"-n", c->ns(), "get", "pod", name, "-o", "jsonpath={.metadata.uid}"});
    }
  }
  // The target's Pods replaced: the etcds the pod runner started for a Pod
  // of the target's name, but the first. It starts one for each Pod and
  // never restarts one; its line of a Pod's deletion is no count, as a Pod
  // may be gone and made again before the runner sees it terminating.
  int replaced() const {
    std::istringstream log(slurp(c->runner().dir() + "/logs/runner.log"));
    int n = 0;
    for (std::string line; std::getline(log, line);) {
      n += line.find("pod " + target + ": etcd pid ") != std::string::npos ? 1 : 0;
    }
    return n - 1;
  }
};

std::unique_ptr<Rolled> rolled() { return std::make_unique<Rolled>(); }

e2e::CommandResult roll(const Rolled& r, const std::string& kubeconfig) {
  const auto& c = *r.c;
  return e2e::run({e2e::kubectl_etcd_path(), "member", "roll", r.target, "-c", c.name(), "-n", c.ns(), "--connect",
                   "direct", "--operator", c.deployment(), "--yes", "--timeout", "3m", "-o", "json"},
                  {{"KUBECONFIG", kubeconfig}, {"NO_COLOR", "1"}});
}

struct End {
  int replaced_pods = 0;     // the target's Pods replaced, over the runs
  bool ids_kept = false;     // every member keeps its etcd ID
  bool replaced = false;     // the target's Pod is a new one, the others' are not
  std::string marks;         // rolling marks left on the EtcdMembers
  std::string mismatch;      // OperatorCluster::membership_mismatch
  json graph;
  bool operator==(const End& o) const {
    return replaced_pods == o.replaced_pods && ids_kept == o.ids_kept && replaced == o.replaced && marks == o.marks &&
           mismatch == o.mismatch && graph == o.graph;
  }
};

std::ostream& operator<<(std::ostream& os, const End& e) {
  return os << e.replaced_pods << " of the target's Pods replaced, IDs kept " << e.ids_kept << ", target's Pod alone replaced " << e.replaced
            << ", marks [" << e.marks << "], mismatch [" << e.mismatch << "], " << e.graph.size() << " objects";
}

End settle(const Rolled& r, const std::string& where) {
  const auto& c = *r.c;
  c.wait_converged(where + ": the operator to report the cluster converged");
  End e;
  e.replaced_pods = r.replaced();
  e.ids_kept = c.etcd_ids() == r.ids;
  e.replaced = true;
  for (const auto& [name, uid] : r.pods) {
    const std::string now = e2e::kubectl({"-n", c.ns(), "get", "pod", name, "-o", "jsonpath={.metadata.uid}"});
    e.replaced = e.replaced && ((name == r.target) == (now != uid));
  }
  for (const auto& m : c.members()) {
    const auto& a = m["metadata"].value("annotations", json::object());
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (it.key().find("rolling") != std::string::npos) e.marks += m["metadata"]["name"].get<std::string>() + " ";
    }
  }
  e.mismatch = c.membership_mismatch();
  // Names are generated: each member by its place in age.
  std::map<std::string, std::string> names{{c.ns(), "<ns>"}};
  for (std::size_t i = 0; i < r.aged.size(); ++i) names[r.aged[i]] = "<member" + std::to_string(i) + ">";
  e.graph = object_graph(c.ns(), operator_kinds(), names);
  c.check_clean(where);
  auto marker = c.etcdctl({"get", "/lost-answer/marker", "--print-value-only"});
  CHECK_MESSAGE(marker.out.find(c.ns()) != std::string::npos, where << ": " << marker.out << marker.err);
  return e;
}

}  // namespace

TEST_CASE("member roll (operator-mediated): the answer to each write lost, then the same command again") {
  const auto t0 = Clock::now();
  Prepared<Rolled> ahead(1, rolled);
  std::vector<std::string> kinds;  // of each write, by number
  End expected;
  {
    auto r = rolled();
    const std::string work = tmpdir("e2e-lost-roll-0");
    FaultProxy proxy(work, FaultProxy::lose(0));
    auto run = roll(*r, proxy.kubeconfig());
    INFO("uninterrupted: " << run.out << run.err);
    REQUIRE(run.rc == 0);
    kinds = write_kinds(proxy);
    expected = settle(*r, "uninterrupted");
    e2e::run({"rm", "-rf", work});
  }
  const std::vector<int> cases = lost_cases(kinds);
  MESSAGE("W = " << kinds.size() << " mutating requests, " << cases.size()
                 << " cases (one per kind, or LOST_ALL/LOST_N); end state " << expected << "; " << seconds_since(t0)
                 << " s so far");
  CHECK(expected.replaced_pods == 1);
  CHECK(expected.ids_kept);
  CHECK(expected.replaced);
  CHECK(expected.marks == "");
  CHECK(expected.mismatch == "");
  REQUIRE(!kinds.empty());
  lost_matrix(cases, 2, [&](int n) {
    auto r = ahead.take();
    const std::string work = tmpdir("e2e-lost-roll-" + std::to_string(n));
    FaultProxy proxy(work + "/first", FaultProxy::lose(n));
    auto first = roll(*r, proxy.kubeconfig());
    const std::string lost = lost_line(proxy);
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc << ": " << first.err);
    CHECK_MESSAGE(!lost.empty(), "N = " << n);
    if (first.rc != 0) {
      auto again = roll(*r, e2e::var("KUBECONFIG"));
      MESSAGE("N = " << n << ": re-run rc " << again.rc << ": " << again.err);
      CHECK_MESSAGE(again.rc == 0, "N = " << n << ": re-run: " << again.out << again.err);
    }
    const End got = settle(*r, "N = " + std::to_string(n));
    CHECK_MESSAGE(got == expected, "N = " << n << " (" << lost << "): " << got << "; uninterrupted: " << expected
                                          << "; graph diff " << json::diff(expected.graph, got.graph).dump());
    e2e::run({"rm", "-rf", work});
  });
  MESSAGE("seconds: " << seconds_since(t0));
}
