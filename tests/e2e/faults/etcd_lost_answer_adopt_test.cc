// A lost answer to etcd's own writes during `etcd-migrate adopt --apply` of
// a 3-member TLS + auth legacy cluster
// (docs/server-faults.md#lost-answers-to-etcds-writes): etcd applied one of
// the adoption's auth calls (AuthDisable, UserDelete, UserAdd,
// UserGrantRole), but the connection dropped before its answer reached the
// program (grpc_lost_answer_proxy.py, ending the client's TLS with the
// members' own server certificate and dialling them with the cluster's
// client certificate). One uninterrupted run lists its writes; then for each
// a fresh cluster, the answer to its first call lost (the run finishes), and
// the same command again. Each time the end state is the uninterrupted run's: the same
// object graph, the cluster and member IDs and pod UIDs of before, every
// key a writer put meanwhile, and `verify` passing (with its check that
// root's password is the Secret's).
#include "grpc_proxy_e2e.h"
#include "lost_matrix.h"

using namespace faults_e2e;

namespace {

// The members' server certificate and key, their CA, the client
// certificate and key (CN root), as the fixture made them.
std::vector<std::string> tls_files(const e2e::LegacyFixture& f) {
  const std::string pki = f.info()["etcdDir"].get<std::string>() + "/pki/";
  return {pki + "server.crt", pki + "server.key", pki + "ca.crt", pki + "client.crt", pki + "client.key"};
}

struct Case {
  e2e::Namespace ns{"e2e-grpc-adopt"};
  e2e::LegacyFixture f{ns.name(), "etcd", adopt_fixture()};
  e2e::Before before = e2e::record(f);
};

e2e::CommandResult adopt(const e2e::LegacyFixture& f, const std::string& backup) {
  return e2e::run(adopt_args(f, e2e::var("KUBECONFIG"), backup), {{"NO_COLOR", "1"}});
}

}  // namespace

TEST_CASE("adopt --apply of a TLS + auth cluster: the answer to each of etcd's writes lost, then again") {
  std::vector<std::string> writes;
  std::string expected;
  {
    Case k;
    e2e::Writer writer(k.f);
    const std::string work = tmpdir("e2e-grpc-adopt-0");
    grpc_e2e::GrpcProxy proxy(k.f.info()["members"], k.f.ns(), work, "", tls_files(k.f));
    auto r = adopt(k.f, e2e::backup_dir(k.f));
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    writes = proxy.methods();
    MESSAGE("W = " << writes.size() << " writes; the calls: " << proxy.calls_line());
    check_converged(k.f, k.before, writer);
    expected = e2e::graph(k.f);
    e2e::run({"rm", "-rf", work});
  }
  REQUIRE(writes == std::vector<std::string>{"AuthDisable", "UserDelete", "UserAdd", "UserGrantRole"});
  lost_matrix({0, 1, 2, 3}, 2, [&](int i) {
    const std::string lost = writes[static_cast<std::size_t>(i)];
    Case k;
    e2e::Writer writer(k.f);
    const std::string work = tmpdir("e2e-grpc-adopt-" + lost);
    const std::string backup = e2e::backup_dir(k.f);
    grpc_e2e::GrpcProxy proxy(k.f.info()["members"], k.f.ns(), work, lost, tls_files(k.f));
    auto first = adopt(k.f, backup);
    MESSAGE(lost << ": " << proxy.cut() << "; first run rc " << first.rc << ": " << grpc_e2e::last_line(first.err));
    CHECK_MESSAGE(!proxy.cut().empty(), lost);
    // The client asks another member again; each call is found done, or
    // (UserAdd: "user name already exists") done again.
    CHECK_MESSAGE(first.rc == 0, lost << ": " << first.out << first.err);
    auto again = e2e::apply(k.f, {"--backup-dir", backup});
    MESSAGE(lost << ": re-run rc " << again.rc);
    CHECK_MESSAGE(again.rc == 0, lost << ": first run: " << first.out << first.err << "\nre-run: " << again.out << again.err);
    check_converged(k.f, k.before, writer);
    const std::string got = e2e::graph(k.f);
    if (got != expected) {
      std::ofstream(e2e::var("TESTENV_DIR") + "/grpc-adopt-graph-" + lost + ".json") << got;
      std::ofstream(e2e::var("TESTENV_DIR") + "/grpc-adopt-graph-expected.json") << expected;
    }
    CHECK_MESSAGE(got == expected, lost << ": graphs in $TESTENV_DIR/grpc-adopt-graph-*.json");
    e2e::run({"rm", "-rf", work});
  });
}

// AuthEnable is made only when the adoption stops after it disabled auth
// (docs/rules.md: R3): here the backup finds someone else's file where its
// snapshot would go. Its answer lost, the client asks another member, which
// finds auth on and answers success: auth is back on, the run says so.
TEST_CASE("adopt --apply stopped after auth was disabled: the answer to AuthEnable lost") {
  Case k;
  const std::string work = tmpdir("e2e-grpc-adopt-AuthEnable");
  const std::string backup = e2e::backup_dir(k.f);
  const std::string foreign = backup + "/" + k.ns.name() + "-etcd-migration.db";
  std::ofstream(foreign) << "not ours";
  grpc_e2e::GrpcProxy proxy(k.f.info()["members"], k.f.ns(), work, "AuthEnable", tls_files(k.f));
  auto first = adopt(k.f, backup);
  INFO("first run: " << first.out << first.err);
  MESSAGE("AuthEnable: " << proxy.cut() << "; first run rc " << first.rc);
  REQUIRE_FALSE(proxy.cut().empty());
  CHECK(first.rc == 1);
  CHECK(first.out.find("re-enabled") != std::string::npos);
  CHECK(k.f.etcdctl({"auth", "status"}).out.find("Authentication Status: true") != std::string::npos);
  CHECK(e2e::kubectl_result({"-n", k.f.ns(), "get", "etcdclusters.etcd-operator.cozystack.io", "etcd"}).rc != 0);
  std::filesystem::remove(foreign);
  auto again = e2e::apply(k.f, {"--backup-dir", backup});
  INFO("re-run: " << again.out << again.err);
  CHECK(again.rc == 0);
  CHECK(e2e::etcd_migrate({"verify", "-n", k.f.ns(), k.f.name()}).rc == 0);
  e2e::run({"rm", "-rf", work});
}
