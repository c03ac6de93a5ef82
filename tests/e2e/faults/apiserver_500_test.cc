// The kube-apiserver answering 500 for a while in the middle of
// `etcd-migrate adopt --apply` (docs/server-faults.md), through a small proxy
// on loopback in front of the environment's apiserver (fault_proxy.py): the
// fault window opens once the adoption's first write went through. A 500 for
// longer than the kube client's bounded retries fails the cluster's
// pipeline, its result line naming the request; the same command run again
// finishes the adoption.
#include "apiserver_e2e.h"

using namespace faults_e2e;

TEST_CASE("500 for 8 s after the first write: the run fails naming the request, a re-run converges") {
  e2e::Namespace ns("e2e-fault-500");
  e2e::LegacyFixture f(ns.name(), "etcd", adopt_fixture());
  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);
  const std::string work = tmpdir("e2e-fault-500");
  const std::string bdir = e2e::backup_dir(f);
  FaultProxy proxy(work, 1, {"500:8"});
  auto t0 = Clock::now();
  auto r = e2e::run(adopt_args(f, proxy.kubeconfig(), bdir), {{"NO_COLOR", "1"}});
  double took = seconds_since(t0);
  MESSAGE("rc " << r.rc << " in " << took << " s; " << proxy.count("fault 500") << " requests answered 500\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(proxy.count("fault 500") >= 1);
  // A failed cluster (1): its result line carries the apiserver's message,
  // and the run says how to go on.
  CHECK(r.rc == 1);
  CHECK(took < 60);
  CHECK(r.out.find("Failed: ") != std::string::npos);
  CHECK(r.out.find("injected by the test's fault proxy") != std::string::npos);
  CHECK(r.out.find("re-run the same command") != std::string::npos);
  CHECK_FALSE(adoption_finished(f));

  // Once the window is over (8 s from the first write, which came some
  // seconds into the run), the same command resumes.
  REQUIRE(proxy.wait_passing(std::chrono::seconds(30)));
  auto resumed = e2e::run(adopt_args(f, proxy.kubeconfig(), bdir), {{"NO_COLOR", "1"}});
  INFO("re-run: " << resumed.out << resumed.err);
  CHECK(resumed.rc == 0);
  check_converged(f, before, writer);
  e2e::run({"rm", "-rf", work});
}
