// Helpers of the kubectl-etcd e2e tests: a native v1alpha2 cluster from
// tests/testenv/native-fixture over real etcd, the built binary run against
// it with --connect direct, and etcdctl on the same cluster to compare with.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "etcd/client.h"
#include "testenv.h"

namespace admin_e2e {

using json = nlohmann::json;

inline const std::vector<std::string>& versions() {
  static const std::vector<std::string> v{"3.4", "3.5", "3.6"};
  return v;
}

struct FixtureOptions {
  std::string version = "3.6";
  int members = 3;
  bool tls = true;
  bool auth = false;
  std::vector<std::string> extra;  // more `native-fixture up` arguments
};

class NativeCluster {
 public:
  explicit NativeCluster(FixtureOptions o) : ns_(e2e::unique_name("adm")), name_("etcd") {
    e2e::env();
    std::vector<std::string> argv{e2e::testenv_tool("native-fixture"), "up", "--name", name_, "--namespace", ns_,
                                  "--members", std::to_string(o.members), "--version", o.version};
    if (o.tls) argv.push_back("--tls");
    if (o.auth) argv.push_back("--auth");
    argv.insert(argv.end(), o.extra.begin(), o.extra.end());
    auto r = e2e::run(argv);
    REQUIRE_MESSAGE(r.rc == 0, "native-fixture up failed: " << r.err);
    dir_ = e2e::var("TESTENV_DIR") + "/fixtures/native." + ns_ + "." + name_;
    std::ifstream f(dir_ + "/fixture.json");
    info_ = json::parse(f);
  }
  ~NativeCluster() {
    if (std::getenv("E2E_KEEP") != nullptr) return;
    e2e::run({e2e::testenv_tool("native-fixture"), "down", "--dir", dir_});
  }
  NativeCluster(const NativeCluster&) = delete;
  NativeCluster& operator=(const NativeCluster&) = delete;

  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }
  const json& info() const { return info_; }
  std::string etcd_dir() const { return info_["etcdDir"]; }
  std::vector<std::string> members() const {
    std::vector<std::string> v;
    for (const auto& m : info_["members"]) v.push_back(m["name"]);
    return v;
  }
  std::string id_of(const std::string& member) const {
    for (const auto& m : info_["members"]) {
      if (m["name"] == member) return m["id"];
    }
    FAIL("no member " << member);
    return {};
  }

  // kubectl-etcd CMD... -c <c> -n <ns> --connect direct ARGS...
  e2e::CommandResult tool(std::vector<std::string> cmd, const std::vector<std::string>& args = {}) const {
    return tool_via("direct", std::move(cmd), args);
  }
  // The same with --connect CONNECT (and extra environment, e.g. KUBECONFIG).
  e2e::CommandResult tool_via(const std::string& connect, std::vector<std::string> cmd,
                              const std::vector<std::string>& args = {},
                              const std::map<std::string, std::string>& env = {}) const {
    std::vector<std::string> argv{binary()};
    argv.insert(argv.end(), cmd.begin(), cmd.end());
    for (const auto& a : {std::string("-c"), name_, std::string("-n"), ns_, std::string("--connect"), connect,
                          std::string("--operator"), ns_ + "/etcd-operator"}) {
      argv.push_back(a);
    }
    argv.insert(argv.end(), args.begin(), args.end());
    return e2e::run(argv, env);
  }
  static std::string binary() {
    const char* b = std::getenv("KUBECTL_ETCD");
    REQUIRE_MESSAGE(b != nullptr, "KUBECTL_ETCD is not set");
    return b;
  }

  // The cluster's etcdctl, as root by certificate.
  e2e::CommandResult ctl_result(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{e2e::testenv_tool("etcd-cluster"), "ctl", "--dir", etcd_dir(), "--"};
    argv.insert(argv.end(), args.begin(), args.end());
    return e2e::run(argv);
  }
  std::string ctl(const std::vector<std::string>& args) const {
    auto r = ctl_result(args);
    REQUIRE_MESSAGE(r.rc == 0, "etcdctl failed: " << r.err);
    return r.out;
  }
  // Membership changes: etcd refuses them until its members have been
  // connected for a few seconds (strict reconfig check), so retry meanwhile.
  std::string reconfigure(const std::vector<std::string>& args) const {
    e2e::CommandResult r;
    for (int i = 0; i < 100; ++i) {
      r = ctl_result(args);
      if (r.rc == 0 || r.err.find("unhealthy cluster") == std::string::npos) break;
      usleep(200000);
    }
    // Asked of the very member it removes (etcdctl picks any endpoint), the
    // removal is applied and that member stops before it answers: etcdctl
    // says "server stopped" although the change went through. The
    // membership, read from the others, decides.
    if (r.rc != 0 && args.size() == 3 && args[0] == "member" && args[1] == "remove" &&
        r.err.find("server stopped") != std::string::npos && !lists_member_id(args[2])) {
      return r.out;
    }
    REQUIRE_MESSAGE(r.rc == 0, "etcdctl failed: " << r.err);
    return r.out;
  }
  // By value: etcdctl prints IDs in hex without leading zeros.
  bool lists_member_id(const std::string& hex_id) const {
    const auto want = std::stoull(hex_id, nullptr, 16);
    std::istringstream lines(ctl({"member", "list"}));
    for (std::string line; std::getline(lines, line);) {
      auto comma = line.find(',');
      if (comma != std::string::npos && std::stoull(line.substr(0, comma), nullptr, 16) == want) return true;
    }
    return false;
  }
  void act(const std::string& verb, const std::string& member) const {
    auto r = e2e::run({e2e::testenv_tool("etcd-cluster"), verb, "--dir", etcd_dir(), "--member", member});
    REQUIRE_MESSAGE(r.rc == 0, "etcd-cluster " << verb << " failed: " << r.err);
  }
  std::string kubectl(std::vector<std::string> args) const {
    args.insert(args.end(), {"-n", ns_});
    return e2e::kubectl(args);
  }
  std::string etcd_bin() const {
    auto env = e2e::parse_env_file(etcd_dir() + "/cluster.env");
    return env["ETCD_BIN"];
  }
  // A client of the library straight to the members' loopback addresses,
  // for the tests' own reads and writes (not the program under test).
  std::unique_ptr<etcd::Client> direct_client() const {
    auto env = e2e::parse_env_file(etcd_dir() + "/cluster.env");
    etcd::Config cfg;
    std::stringstream in(env["ETCD_IP_ENDPOINTS"]);
    for (std::string e; std::getline(in, e, ',');) cfg.endpoints.push_back(e);
    if (env.count("ETCD_CACERT")) {
      cfg.tls.ca_file = env["ETCD_CACERT"];
      cfg.tls.cert_file = env["ETCD_CERT"];
      cfg.tls.key_file = env["ETCD_KEY"];
      cfg.tls.server_name = "localhost";
    }
    cfg.call_timeout = std::chrono::seconds(20);
    auto r = etcd::Client::create(cfg);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().one_line()));
    return std::move(r).value();
  }

 private:
  std::string ns_;
  std::string name_;
  std::string dir_;
  json info_;
};

inline json parse(const e2e::CommandResult& r) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE_FALSE(r.out.empty());
  return json::parse(r.out);
}

inline std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// Plays the operator's controller of a one-shot request (EtcdSnapshot,
// EtcdDefrag): waits for the object the tool creates, then writes the status
// the controller would.
inline void finish_cr(const NativeCluster& c, const std::string& resource, const std::string& name,
                      const std::string& status) {
  for (int i = 0; i < 200; ++i) {
    if (e2e::kubectl_result({"get", resource, name, "-n", c.ns()}).rc == 0) break;
    usleep(50000);
  }
  c.kubectl({"patch", resource, name, "--subresource=status", "--type=merge", "-p", status});
}

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// A program in the background, stdout and stderr to files in `dir`;
// collect() waits for it (a test that ends early kills it).
class Background {
 public:
  Background(std::vector<std::string> args, const std::string& dir,
             const std::vector<std::string>& extra_env = {})
      : out_path_(dir + "/stdout"), err_path_(dir + "/stderr") {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_store;
    for (char** e = environ; *e != nullptr; ++e) env_store.emplace_back(*e);
    env_store.insert(env_store.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data()) == 0);
    posix_spawn_file_actions_destroy(&fa);
    started_ = Clock::now();
  }
  ~Background() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  bool running() {
    if (pid_ <= 0) return false;
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = st;
      pid_ = 0;
      ended_ = Clock::now();
      return false;
    }
    return true;
  }
  // Waits at most `limit`; a program still running then is killed and the test fails.
  e2e::CommandResult collect(std::chrono::seconds limit = std::chrono::seconds(300)) {
    auto deadline = Clock::now() + limit;
    while (running() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (running()) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      pid_ = 0;
      ended_ = Clock::now();
      FAIL_CHECK("the program did not end within " << limit.count() << " s (killed)");
    }
    e2e::CommandResult r;
    r.rc = WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
    std::ifstream o(out_path_, std::ios::binary), e(err_path_, std::ios::binary);
    r.out.assign(std::istreambuf_iterator<char>(o), {});
    r.err.assign(std::istreambuf_iterator<char>(e), {});
    return r;
  }
  double took() const { return std::chrono::duration<double>(ended_ - started_).count(); }

 private:
  pid_t pid_ = 0;
  int status_ = 0;
  std::string out_path_, err_path_;
  Clock::time_point started_, ended_;
};

// The name of the member status reports as leader, asked up to 50 times
// (a cluster just started or just after an election may have none yet).
inline std::string leader_of(const NativeCluster& c) {
  for (int i = 0; i < 50; ++i) {
    auto st = c.tool({"status"}, {"-o", "json"});
    if (st.rc == 0) {
      const json doc = json::parse(st.out);
      for (const auto& m : doc["members"]) {
        if (m["role"] == "leader") return m["name"];
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  FAIL("no leader in status");
  return {};
}

}  // namespace admin_e2e
