// The kube-apiserver answering 429 for a while in the middle of
// `etcd-migrate adopt --apply` (docs/server-faults.md), through a small proxy
// on loopback in front of the environment's apiserver (fault_proxy.py): the
// fault window opens once the adoption's first write went through. 429 with
// Retry-After is the apiserver's own "come back later" (priority and
// fairness): the kube client waits and retries every request, a POST too
// (the server did nothing), so a short window costs time, not the run.
#include "apiserver_e2e.h"

using namespace faults_e2e;

TEST_CASE("429 with Retry-After for 3 s after the first write: the run waits it out and completes") {
  e2e::Namespace ns("e2e-fault-429");
  e2e::LegacyFixture f(ns.name(), "etcd", adopt_fixture());
  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);
  const std::string work = tmpdir("e2e-fault-429");
  FaultProxy proxy(work, 1, {"429:3"});
  auto t0 = Clock::now();
  auto r = e2e::run(adopt_args(f, proxy.kubeconfig(), e2e::backup_dir(f)), {{"NO_COLOR", "1"}});
  double took = seconds_since(t0);
  MESSAGE("rc " << r.rc << " in " << took << " s; " << proxy.count("fault 429") << " requests answered 429\nstdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.rc == 0);
  CHECK(proxy.count("fault 429") >= 1);  // the window was hit
  CHECK(took < 90);
  check_converged(f, before, writer);
  e2e::run({"rm", "-rf", work});
}
