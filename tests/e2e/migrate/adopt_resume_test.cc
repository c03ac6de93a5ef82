// Crash safety (docs/rules.md#resumable-adoption): the process is killed
// with SIGKILL right after each mutating step (through the test-only
// ETCD_MIGRATE_TEST_KILL_AFTER seam), then the same command is re-run. The
// end state must equal an uninterrupted run's: the same object graph, no
// pod recreated, etcd's identity and every key unchanged, auth usable.
#include <doctest/doctest.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "adopt_checks.h"
#include "migrate/adoption_step.h"

namespace {

const std::vector<std::string> kFixture = {"--version", "3.6", "--tls", "--auth", "--pdb"};

std::string uninterrupted_graph() {
  e2e::Namespace ns("e2e-resume-base");
  e2e::LegacyFixture f(ns.name(), "etcd", kFixture);
  auto r = e2e::apply(f, {"--backup-dir", e2e::backup_dir(f)});
  REQUIRE_MESSAGE(r.rc == 0, r.out << r.err);
  // The adoption does not wait for the StatefulSet to go (docs/adoption-reown.md).
  REQUIRE(e2e::wait_statefulset_gone(f));
  std::string graph = e2e::graph(f);
  // The object graph as reviewed once (uids, versions, times and the
  // namespace masked); GOLDEN_UPDATE=1 rewrites it.
  const std::string golden = e2e::source_root() + "/tests/e2e/migrate/golden/adopted-3.6-tls-auth.json";
  if (std::getenv("GOLDEN_UPDATE") != nullptr) {
    std::ofstream(golden) << graph << "\n";
  } else {
    std::ifstream in(golden);
    REQUIRE_MESSAGE(in.good(), "cannot read " << golden);
    std::string expected((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(graph + "\n" == expected);
  }
  return graph;
}

// The mutating steps from `first` to `last`, in the step type's order (the
// pipeline's, docs/adoption-design.md), named as the seam reads them: a
// step added between them is killed after too, with no list to update.
std::vector<std::string> steps(migrate::AdoptionStep first, migrate::AdoptionStep last) {
  std::vector<std::string> out;
  for (int s = static_cast<int>(first); s <= static_cast<int>(last); ++s) {
    out.emplace_back(migrate::step_name(static_cast<migrate::AdoptionStep>(s)));
  }
  return out;
}

void kill_and_resume(const std::string& step, const std::string& expected) {
  CAPTURE(step);
  e2e::Namespace ns("e2e-resume");
  e2e::LegacyFixture f(ns.name(), "etcd", kFixture);
  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);
  std::string dir = e2e::backup_dir(f);
  auto killed = e2e::apply(f, {"--backup-dir", dir}, {{"ETCD_MIGRATE_TEST_KILL_AFTER", step}});
  INFO("killed run: " << killed.err);
  CHECK(killed.rc != 0);  // it died there
  auto resumed = e2e::apply(f, {"--backup-dir", dir});
  INFO("resumed run: " << resumed.out << resumed.err);
  CHECK(resumed.rc == 0);
  long long written = writer.stop();
  CHECK(writer.errors() == 0);
  e2e::check_adopted(f, before, true);
  e2e::check_keys(f, written);
  std::string got = e2e::graph(f);
  if (got != expected) {
    // Left for a reader of the failure: diff the two files.
    std::ofstream(e2e::var("TESTENV_DIR") + "/graph-after-" + step + ".json") << got;
    std::ofstream(e2e::var("TESTENV_DIR") + "/graph-uninterrupted.json") << expected;
  }
  CHECK(got == expected);
  CHECK(e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd"}).rc == 0);
  e2e::check_operator_auth_enable(f);
}

}  // namespace

TEST_CASE("killed after each step of the first half, the re-run ends as an uninterrupted run") {
  std::string expected = uninterrupted_graph();
  for (const auto& step : steps(migrate::AdoptionStep::RootCredentials, migrate::AdoptionStep::HeadlessService)) {
    kill_and_resume(step, expected);
  }
}

TEST_CASE("killed after each step of the second half, the re-run ends as an uninterrupted run") {
  std::string expected = uninterrupted_graph();
  for (const auto& step : steps(migrate::AdoptionStep::StatefulSet, migrate::AdoptionStep::LegacyEtcdCluster)) {
    kill_and_resume(step, expected);
  }
}

// The pods change owner without waiting for the garbage collector, right
// after the StatefulSet's orphan delete was accepted (docs/adoption-reown.md).
// Killed in between, the StatefulSet is Terminating while no pod belongs to
// an EtcdMember yet; the re-run re-owns them (whether or not the collector
// has orphaned them meanwhile) and ends as an uninterrupted run.
TEST_CASE("killed between the StatefulSet's orphan delete and the re-own, the re-run re-owns the pods") {
  std::string expected = uninterrupted_graph();
  e2e::Namespace ns("e2e-resume-reown");
  e2e::LegacyFixture f(ns.name(), "etcd", kFixture);
  e2e::Before before = e2e::record(f);
  std::string dir = e2e::backup_dir(f);
  auto killed = e2e::apply(f, {"--backup-dir", dir}, {{"ETCD_MIGRATE_TEST_KILL_AFTER", "statefulset"}});
  INFO("killed run: " << killed.err);
  CHECK(killed.rc != 0);
  auto sts = e2e::kubectl_result({"-n", ns.name(), "get", "statefulset", "etcd", "-o", "json"});
  if (sts.rc == 0) {  // the collector may already have let it go
    auto meta = nlohmann::json::parse(sts.out)["metadata"];
    CHECK(meta.contains("deletionTimestamp"));
  }
  for (const auto& [pod, uid] : before.pod_uids) {
    auto p = nlohmann::json::parse(e2e::kubectl({"-n", ns.name(), "get", "pod", pod, "-o", "json"}));
    for (const auto& r : p["metadata"].value("ownerReferences", nlohmann::json::array())) {
      CHECK(r["kind"] != "EtcdMember");  // killed before the re-own
    }
  }
  auto resumed = e2e::apply(f, {"--backup-dir", dir});
  INFO("resumed run: " << resumed.out << resumed.err);
  CHECK(resumed.rc == 0);
  e2e::check_adopted(f, before, true);
  CHECK(e2e::graph(f) == expected);
  CHECK(e2e::etcd_migrate({"verify", "-n", ns.name(), "etcd"}).rc == 0);
}
