// A lost answer (docs/server-faults.md#lost-answers) in `kubectl-etcd member
// unwedge` on the wedge the real operator gets into when a dead member is
// removed from etcd by hand and its EtcdMember deleted: the finalizer's
// MemberRemove of the stored ID answers "member not found" for good, and
// the operator waits on the Terminating member. With the operator running
// unwedge clears the stored ID and the operator's finalizer releases the
// member; with the operator stopped (scaled to 0) unwedge releases the
// finalizer itself, and the operator, scaled back, fills the gap. For each
// of the two, one uninterrupted run through fault_proxy.py counts the
// writes W; then for each N (one per kind: lost_matrix.h) a fresh wedged
// cluster, the answer to write N lost, and the same command again. Each time the end state is the uninterrupted
// run's once the operator has completed the fix: the ghost gone from etcd
// and the EtcdMembers, the gap filled by one new member, the other members'
// IDs kept, the object graph the same, `check` clean and a key put before
// still there.
//
// A wedged cluster takes a minute or more to make (the operator bootstraps
// it, notices the dead member, fails on its finalizer), so the first cases'
// clusters are made while the uninterrupted run's is. One meson test for
// each of the two (lost_unwedge_test.cc, lost_unwedge_stopped_test.cc), so
// that they run side by side.
#pragma once

#include <fstream>
#include <future>
#include <thread>

#include "lost_operator.h"

namespace lost_unwedge {

using namespace faults_e2e;

inline json member_obj(const e2e::OperatorCluster& c, const std::string& m) {
  return e2e::get_json({"-n", c.ns(), "etcdmembers.etcd-operator.cozystack.io", m});
}

inline bool condition_is(const json& cond, const char* status, const char* reason) {
  return cond.is_object() && cond.value("status", "") == status && cond.value("reason", "") == reason;
}

// A 3-member cluster of the real operator with a key put, then wedged: the
// youngest member's etcd SIGKILLed, the operator's noticing it, the member
// removed from etcd by hand and its EtcdMember deleted, the finalizer
// failing. `stopped`: then the operator scaled to 0, and unwedge sees it
// stopped (it releases the finalizer itself instead of clearing the ID).
struct Wedged {
  std::unique_ptr<e2e::OperatorCluster> c;
  bool stopped = false;
  std::string ghost;
  std::map<std::string, std::string> kept;  // name -> etcd ID of the members that stay
  std::vector<std::string> kept_names;      // by age

  explicit Wedged(bool stop)
      : c(std::make_unique<e2e::OperatorCluster>("e2e-lostunwedge", e2e::OperatorCluster::Options{})), stopped(stop) {
    REQUIRE(c->etcdctl({"put", "/lost-answer/marker", c->ns()}).rc == 0);
    ghost = youngest_follower(*c);
    for (const auto& m : members_by_age(*c)) {
      if (m != ghost) kept_names.push_back(m);
    }
    kept = c->etcd_ids();
    const std::string ghost_id = kept.at(ghost);
    kept.erase(ghost);
    const std::size_t from = c->log_size();
    {
      std::ifstream f(c->runner().dir() + "/pods/" + ghost + "/etcd.pid");
      std::string pid;
      f >> pid;
      REQUIRE_FALSE(pid.empty());
      REQUIRE(e2e::run({"kill", "-KILL", pid}).rc == 0);
    }
    e2e::wait_until(
        [&] {
          return condition_is(e2e::condition(member_obj(*c, ghost), "Ready"), "False", "PodNotReady") &&
                 condition_is(e2e::condition(e2e::get_json({"-n", c->ns(), "etcdclusters.etcd-operator.cozystack.io", c->name()}),
                                             "Degraded"),
                              "True", "MembersUnhealthy");
        },
        std::chrono::seconds(90), "the operator to report " + ghost + " not Ready and the cluster Degraded");
    auto removed = c->etcdctl({"member", "remove", ghost_id});
    REQUIRE_MESSAGE(removed.rc == 0, "etcdctl member remove: " << removed.err);
    e2e::kubectl({"-n", c->ns(), "delete", "etcdmembers.etcd-operator.cozystack.io", ghost, "--wait=false"});
    e2e::wait_until(
        [&] {
          const std::string log = c->op().log().substr(from);
          return log.find("failed to remove member from etcd, will retry") != std::string::npos &&
                 log.find("member not found") != std::string::npos;
        },
        std::chrono::seconds(60), "the operator's finalizer to fail on the removed member");
    if (stopped) {
      c->op().scale(0);
      e2e::wait_until(
          [&] {
            auto plan = c->tool({"member", "unwedge"}, {"--dry-run", "-o", "json"});
            const json doc = json::parse(plan.out, nullptr, false);
            return plan.rc == 0 && doc.is_object() && doc.value("operatorActive", true) == false;
          },
          std::chrono::seconds(90), "unwedge to see the operator stopped");
    }
  }
};

inline std::unique_ptr<Wedged> wedged(bool stopped) { return std::make_unique<Wedged>(stopped); }

inline e2e::CommandResult unwedge(const e2e::OperatorCluster& c, const std::string& kubeconfig) {
  return e2e::run({e2e::kubectl_etcd_path(), "member", "unwedge", "-c", c.name(), "-n", c.ns(), "--connect", "direct",
                   "--operator", c.deployment(), "--yes", "--timeout", "90s", "-o", "json"},
                  {{"KUBECONFIG", kubeconfig}, {"NO_COLOR", "1"}});
}

// What must equal an uninterrupted run's once the operator has settled.
struct End {
  bool ghost_gone = false;  // neither an EtcdMember nor in etcd
  bool kept = false;        // the members that stay keep their etcd IDs
  std::size_t members = 0, etcd = 0;
  std::string mismatch;     // OperatorCluster::membership_mismatch
  json graph;               // the namespace's objects, names of the case replaced
  bool operator==(const End& o) const {
    return ghost_gone == o.ghost_gone && kept == o.kept && members == o.members && etcd == o.etcd &&
           mismatch == o.mismatch && graph == o.graph;
  }
};

inline std::ostream& operator<<(std::ostream& os, const End& e) {
  return os << "ghost gone " << e.ghost_gone << ", IDs kept " << e.kept << ", " << e.members << " EtcdMembers, " << e.etcd
            << " etcd members, mismatch [" << e.mismatch << "], " << e.graph.size() << " objects";
}

inline End settle(const Wedged& w, const std::string& where) {
  auto& c = *w.c;
  if (w.stopped) {
    c.op().scale(1);
    c.op().wait_leading();
  }
  e2e::wait_until([&] { return e2e::kubectl_result({"-n", c.ns(), "get", "etcdmembers.etcd-operator.cozystack.io", w.ghost}).rc != 0; },
                  std::chrono::seconds(60), where + ": the operator's finalizer to release " + w.ghost);
  c.wait_converged(where + ": the operator to fill the gap " + w.ghost + " left");
  End e;
  const auto ids = c.etcd_ids();
  e.etcd = ids.size();
  e.members = c.members().size();
  e.ghost_gone = ids.count(w.ghost) == 0;
  e.kept = true;
  for (const auto& [name, id] : w.kept) e.kept = e.kept && ids.count(name) != 0 && ids.at(name) == id;
  e.mismatch = c.membership_mismatch();
  std::map<std::string, std::string> names{{c.ns(), "<ns>"}, {w.ghost, "<ghost>"}};
  for (std::size_t i = 0; i < w.kept_names.size(); ++i) names[w.kept_names[i]] = "<kept" + std::to_string(i) + ">";
  for (const auto& m : c.members()) {
    const std::string name = m["metadata"]["name"];
    if (names.count(name) == 0) names[name] = "<new>";
  }
  e.graph = object_graph(c.ns(), operator_kinds(), names);
  c.check_clean(where);
  auto marker = c.etcdctl({"get", "/lost-answer/marker", "--print-value-only"});
  CHECK_MESSAGE(marker.out.find(c.ns()) != std::string::npos, where << ": " << marker.out << marker.err);
  return e;
}

// The matrix; `cases_ahead`: the clusters of that many cases made ahead.
inline void matrix(bool stopped, std::size_t cases_ahead) {
  const auto t0 = Clock::now();
  // The clusters of the first cases, made beside the uninterrupted run's.
  Prepared<Wedged> ahead(cases_ahead, [stopped] { return wedged(stopped); });
  std::vector<std::string> kinds;  // of each write, by number
  End expected;
  {
    auto w = wedged(stopped);
    const std::string work = tmpdir("e2e-lost-unwedge-0");
    FaultProxy proxy(work, FaultProxy::lose(0));
    auto r = unwedge(*w->c, proxy.kubeconfig());
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    kinds = write_kinds(proxy);
    expected = settle(*w, "uninterrupted");
    e2e::run({"rm", "-rf", work});
  }
  const std::vector<int> cases = lost_cases(kinds);
  MESSAGE("W = " << kinds.size() << " mutating requests, " << cases.size()
                 << " cases (one per kind, or LOST_ALL/LOST_N); end state " << expected << "; "
                 << seconds_since(t0) << " s so far");
  CHECK(expected.ghost_gone);
  CHECK(expected.kept);
  CHECK(expected.members == 3);
  CHECK(expected.etcd == 3);
  CHECK(expected.mismatch == "");
  REQUIRE(!kinds.empty());
  lost_matrix(cases, 2, [&](int n) {
    auto w = ahead.take();
    const std::string work = tmpdir("e2e-lost-unwedge-" + std::to_string(n));
    FaultProxy proxy(work, FaultProxy::lose(n));
    auto first = unwedge(*w->c, proxy.kubeconfig());
    const std::string lost = lost_line(proxy);
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc << ": " << first.out << first.err);
    CHECK_MESSAGE(!lost.empty(), "N = " << n);
    auto again = unwedge(*w->c, e2e::var("KUBECONFIG"));
    MESSAGE("N = " << n << ": re-run rc " << again.rc << ": " << again.out << again.err);
    CHECK_MESSAGE(again.rc == 0, "N = " << n << ": re-run: " << again.out << again.err);
    const End got = settle(*w, "N = " + std::to_string(n));
    CHECK_MESSAGE(got == expected, "N = " << n << " (" << lost << "): " << got << "; uninterrupted: " << expected
                                          << "; graph diff " << json::diff(expected.graph, got.graph).dump());
    e2e::run({"rm", "-rf", work});
  });
  MESSAGE("seconds: " << seconds_since(t0));
}

}  // namespace lost_unwedge
