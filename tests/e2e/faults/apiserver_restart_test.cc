// The kube-apiserver stopped and restarted in the middle of `etcd-migrate
// adopt --apply` (docs/server-faults.md). The environment's own apiserver
// serves other tests, so this test starts a second, real kube-apiserver on
// the same store and certificates (tests/testenv/apiserver-replica), points
// the program at it, freezes it (SIGSTOP) the moment the adoption's first
// object appears, stops it as a rolling restart does (SIGTERM), keeps it down
// a few seconds and starts it again on the same port. The run must end by
// itself (bounded retries, no hang), and if it failed, say so in its result
// line naming the apiserver, with auth back on; the same command run again
// must finish the adoption with nothing lost.
#include "apiserver_e2e.h"

using namespace faults_e2e;

TEST_CASE("the apiserver stopped and restarted mid-adoption: the run ends by itself, a re-run converges") {
  e2e::Namespace ns("e2e-fault-api");
  e2e::LegacyFixture f(ns.name(), "etcd", adopt_fixture());
  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);
  const std::string bdir = e2e::backup_dir(f);
  ApiserverReplica api(ns.name());
  const std::string work = tmpdir("e2e-fault-api");

  Background adopt(adopt_args(f, api.kubeconfig(), bdir), work, {"NO_COLOR=1"});
  // The first write of an adoption is the root credentials Secret.
  bool started = wait_for(
      [&] {
        return e2e::kubectl_result({"-n", ns.name(), "get", "secret", f.name() + "-root-credentials", "-o", "name"}).rc == 0;
      },
      std::chrono::seconds(90), std::chrono::milliseconds(10));
  REQUIRE_MESSAGE(started, "the adoption wrote nothing: " << slurp(work + "/stderr"));
  REQUIRE(::kill(api.pid(), SIGSTOP) == 0);
  // Read through the environment's apiserver: the replica is frozen, so this
  // is where the adoption stands.
  REQUIRE_MESSAGE(!adoption_finished(f), "the adoption finished before the apiserver stopped");
  auto reached = e2e::kubectl_result({"-n", ns.name(), "get", "etcdclusters.etcd-operator.cozystack.io,etcdmembers",
                                      "-o", "name"});
  MESSAGE("stopped the apiserver with these v1alpha2 objects written: [" << reached.out << "]");
  auto down_at = Clock::now();
  api.act("stop");  // SIGTERM (and SIGCONT): a graceful shutdown
  std::this_thread::sleep_for(std::chrono::seconds(3));
  api.act("start");
  MESSAGE("the apiserver was away for " << seconds_since(down_at) << " s");

  auto r = adopt.collect(std::chrono::seconds(120));
  MESSAGE("the interrupted run: rc " << r.rc << " after " << adopt.took() << " s\nstdout: " << r.out << "\nstderr: "
                                     << r.err);
  if (r.rc != 0) {
    // A failed cluster (1): its line of the result names the server it could
    // not reach (or carries the apiserver's own "shutting down" answer, when
    // the retries ended inside its shutdown), and the run says how to go on.
    CHECK(r.rc == 1);
    CHECK(r.out.find("Failed: ") != std::string::npos);
    CHECK((r.out.find("server \"" + api.url() + "\"") != std::string::npos ||
           r.out.find("apiserver is shutting down") != std::string::npos));
    CHECK(r.out.find("re-run the same command") != std::string::npos);
  }

  auto resumed = e2e::run(adopt_args(f, api.kubeconfig(), bdir), {{"NO_COLOR", "1"}});
  INFO("re-run: " << resumed.out << resumed.err);
  CHECK(resumed.rc == 0);
  check_converged(f, before, writer);
  e2e::run({"rm", "-rf", work});
}
