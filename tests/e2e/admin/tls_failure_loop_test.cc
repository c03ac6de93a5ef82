// The TLS-failure path of `status --tls-server-name wrong.example`, run many
// times: a use-after-free was once seen there (1 run in 50 under
// MALLOC_PERTURB_). In the sanitizer build (tests/run's sanitizer phase) each
// run is under AddressSanitizer, which aborts with its report on any use of
// freed memory; in the plain build MALLOC_PERTURB_ fills freed memory so that
// a read of it goes wrong visibly. Either way every run must fail the same
// way: exit 2 (cannot connect) with the one-line error, nothing else.
#include "admin_e2e.h"

using namespace admin_e2e;

TEST_CASE("status with a wrong TLS server name fails cleanly, 50 runs in a row") {
  FixtureOptions o;
  o.version = "3.6";
  o.tls = true;
  NativeCluster c(o);
  auto env = e2e::parse_env_file(c.etcd_dir() + "/cluster.env");
  const int runs = 50;
  for (int i = 0; i < runs; ++i) {
    CAPTURE(i);
    auto r = e2e::run({NativeCluster::binary(), "status", "--endpoints", env["ETCD_IP_ENDPOINTS"], "--cacert",
                       env["ETCD_CACERT"], "--cert", env["ETCD_CERT"], "--key", env["ETCD_KEY"],
                       "--tls-server-name", "wrong.example", "--command-timeout", "2s"},
                      {{"MALLOC_PERTURB_", std::to_string(1 + i % 254)}, {"KUBECONFIG", "/nonexistent"}});
    REQUIRE_MESSAGE(r.rc == 2, r.err);
    CHECK(r.err.find("AddressSanitizer") == std::string::npos);
    CHECK(r.err.find("runtime error") == std::string::npos);
    // The member's row names the refused server name (the table is on stdout).
    CHECK((r.out + r.err).find("Peer name wrong.example is not in peer certificate") != std::string::npos);
  }
}
