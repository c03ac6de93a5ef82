// The kube-apiserver side of the server-fault tests (docs/server-faults.md):
// a second real apiserver of the environment that a test may stop, kill and
// restart (tests/testenv/apiserver-replica), a proxy that answers errors for a
// while (fault_proxy.py), and `etcd-migrate adopt --apply` run in the
// background against either.
#pragma once

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "../migrate/adopt_checks.h"
#include "faults_e2e.h"

namespace faults_e2e {

// The fixture of the crash-safety tests: TLS, auth and a PDB, so every step
// of an adoption has something to do.
inline const std::vector<std::string>& adopt_fixture() {
  static const std::vector<std::string> v = {"--version", "3.6", "--tls", "--auth", "--pdb"};
  return v;
}

class ApiserverReplica {
 public:
  explicit ApiserverReplica(const std::string& name) : dir_(e2e::var("TESTENV_DIR") + "/replicas/" + name) {
    act("start");
  }
  ~ApiserverReplica() { e2e::run({e2e::testenv_tool("apiserver-replica"), "stop", "--dir", dir_}); }
  ApiserverReplica(const ApiserverReplica&) = delete;
  ApiserverReplica& operator=(const ApiserverReplica&) = delete;

  void act(const std::string& verb) {
    auto r = e2e::run({e2e::testenv_tool("apiserver-replica"), verb, "--dir", dir_});
    REQUIRE_MESSAGE(r.rc == 0, "apiserver-replica " << verb << ": " << r.err);
  }
  pid_t pid() const {
    std::ifstream f(dir_ + "/pids/kube-apiserver.pid");
    pid_t p = 0;
    f >> p;
    return p;
  }
  std::string kubeconfig() const { return dir_ + "/kubeconfig"; }
  std::string url() const { return slurp_line(dir_ + "/url"); }

 private:
  static std::string slurp_line(const std::string& p) {
    std::ifstream f(p);
    std::string s;
    std::getline(f, s);
    return s;
  }
  std::string dir_;
};

// fault_proxy.py in front of the environment's apiserver, with a kubeconfig
// of its own (plain http, no credentials: the proxy authenticates upstream).
class FaultProxy {
 public:
  FaultProxy(const std::string& dir, int after_writes, const std::vector<std::string>& phases)
      : FaultProxy(dir, std::to_string(after_writes), phases) {}
  // The answer to the Nth mutating request lost (fault_proxy.py "lose:N"; 0
  // loses none and only numbers them: count("write ") is then W).
  static std::string lose(int n) { return "lose:" + std::to_string(n); }
  FaultProxy(const std::string& dir, const std::string& mode, const std::vector<std::string>& phases = {}) : dir_(dir) {
    std::string portfile = dir + "/proxy.port";
    std::vector<std::string> args = {"/usr/bin/python3",
                                     e2e::source_root() + "/tests/e2e/faults/fault_proxy.py",
                                     portfile,
                                     log(),
                                     e2e::var("TESTENV_APISERVER"),
                                     e2e::var("TESTENV_CA"),
                                     e2e::var("TESTENV_ADMIN_CERT"),
                                     e2e::var("TESTENV_ADMIN_KEY"),
                                     mode};
    args.insert(args.end(), phases.begin(), phases.end());
    std::filesystem::create_directories(dir + "/proxy");
    proc_ = std::make_unique<Background>(args, dir + "/proxy");
    REQUIRE(wait_for([&] { return exists(portfile); }, std::chrono::seconds(30), std::chrono::milliseconds(20)));
    std::ifstream pf(portfile);
    int port = 0;
    pf >> port;
    REQUIRE(port > 0);
    std::ofstream kc(kubeconfig());
    kc << "apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster:\n    server: http://127.0.0.1:" << port
       << "\ncontexts:\n- name: proxy\n  context: {cluster: proxy, user: none}\nusers:\n- name: none\n  user: {}\n"
       << "current-context: proxy\n";
  }
  std::string kubeconfig() const { return dir_ + "/proxy.kubeconfig"; }
  // Waits until a request passes through again: the fault phases are over
  // (they are timed from the first write, which the caller does not see).
  bool wait_passing(std::chrono::seconds limit) const {
    return wait_for(
        [&] {
          return e2e::run({e2e::var("TESTENV_KUBECTL"), "--kubeconfig", kubeconfig(), "get", "--raw", "/readyz"}).rc == 0;
        },
        limit, std::chrono::milliseconds(200));
  }
  std::string log() const { return dir_ + "/proxy.log"; }
  // Lines of the log that start with `prefix` ("fault 429", "pass 2", ...).
  int count(const std::string& prefix) const {
    std::istringstream in(slurp(log()));
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.rfind(prefix, 0) == 0 ? 1 : 0;
    return n;
  }

 private:
  std::string dir_;
  std::unique_ptr<Background> proc_;  // killed with the object
};

inline std::vector<std::string> adopt_args(const e2e::LegacyFixture& f, const std::string& kubeconfig,
                                           const std::string& backup_dir) {
  return {e2e::etcd_migrate_path(), "adopt", "-n", f.ns(), "--connect", "direct", "--apply", "--yes",
          "--legacy-controller", f.legacy_controller(), "--new-controller", f.new_controller(),
          "--backup-dir", backup_dir, "--kubeconfig", kubeconfig};
}

// Everything an adoption must leave as it found it, and the state it must
// reach: same cluster ID, member IDs and pod UIDs, every key the writer put,
// verify passes (docs/server-faults.md).
inline void check_converged(const e2e::LegacyFixture& f, const e2e::Before& before, e2e::Writer& writer) {
  long long written = writer.stop();
  CHECK(writer.errors() == 0);
  e2e::check_adopted(f, before, true);
  e2e::check_keys(f, written);
  auto v = e2e::etcd_migrate({"verify", "-n", f.ns(), f.name()});
  CHECK_MESSAGE(v.rc == 0, v.out << v.err);
}

// The legacy EtcdCluster's deletion is the adoption's last step: without a
// deletionTimestamp the adoption had not finished.
inline bool adoption_finished(const e2e::LegacyFixture& f) {
  auto r = e2e::kubectl_result({"-n", f.ns(), "get", "etcdclusters.etcd.aenix.io", f.name(), "-o",
                                "jsonpath={.metadata.deletionTimestamp}"});
  return r.rc == 0 && !r.out.empty();
}

}  // namespace faults_e2e
