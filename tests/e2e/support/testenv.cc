#include "testenv.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>

#include <doctest/doctest.h>

extern char** environ;

namespace e2e {

CommandResult run(const std::vector<std::string>& argv, const std::map<std::string, std::string>& extra_env,
                  std::string_view stdin_data) {
#ifndef ETCDOPCLI_TEST_SEAMS
  // The crash tests' seams are compiled into test builds only (meson_options.txt).
  for (const auto& [k, v] : extra_env) {
    if (k.find("_TEST_KILL_AFTER") != std::string::npos || k.find("_TEST_SIGNAL") != std::string::npos) {
      throw std::runtime_error(k + " is a test seam this build does not have: meson configure BUILDDIR "
                               "-Dtest_seams=true (tests/run sets it)");
    }
  }
#endif
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe failed");
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[0], 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);

  std::map<std::string, std::string> envmap;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) envmap[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : extra_env) envmap[k] = v;
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : envmap) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args(argv);
  std::vector<char*> cargv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  pid_t pid;
  int rc = posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(in[0]);
  close(out[1]);
  close(err[1]);
  CommandResult r;
  if (rc != 0) {
    close(in[1]);
    close(out[0]);
    close(err[0]);
    r.rc = 127;
    r.err = std::string("cannot start ") + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  // Feed stdin and drain both pipes together so no side can block the other.
  size_t written = 0;
  if (stdin_data.empty()) close(in[1]);
  bool in_open = !stdin_data.empty(), out_open = true, err_open = true;
  char buf[65536];
  while (in_open || out_open || err_open) {
    std::vector<pollfd> fds;
    if (in_open) fds.push_back({in[1], POLLOUT, 0});
    if (out_open) fds.push_back({out[0], POLLIN, 0});
    if (err_open) fds.push_back({err[0], POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) break;
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == in[1]) {
        ssize_t n = write(in[1], stdin_data.data() + written, stdin_data.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        if (n <= 0 || written == stdin_data.size()) {
          close(in[1]);
          in_open = false;
        }
      } else {
        ssize_t n = read(p.fd, buf, sizeof buf);
        if (n <= 0) {
          close(p.fd);
          (p.fd == out[0] ? out_open : err_open) = false;
        } else {
          (p.fd == out[0] ? r.out : r.err).append(buf, static_cast<size_t>(n));
        }
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::map<std::string, std::string> parse_env_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::map<std::string, std::string> vars;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("export ", 0) != 0) continue;
    line = line.substr(7);
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    std::string value = line.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '\'' && value.back() == '\'') {
      value = value.substr(1, value.size() - 2);
    } else if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    vars[key] = value;
  }
  return vars;
}

const std::map<std::string, std::string>& env() {
  static const std::map<std::string, std::string> vars = [] {
    const char* file = std::getenv("TESTENV_ENV_FILE");
    if (file == nullptr || *file == '\0') {
      FAIL("TESTENV_ENV_FILE is not set: run the e2e tests through `bash tests/run`, or start an "
           "environment with tests/testenv/up DIR and export TESTENV_ENV_FILE=DIR/env");
    }
    auto v = parse_env_file(file);
    // The testenv scripts a test calls find the environment through these.
    for (const auto& [k, val] : v) setenv(k.c_str(), val.c_str(), 1);
    return v;
  }();
  return vars;
}

std::string var(const std::string& name) {
  auto it = env().find(name);
  REQUIRE_MESSAGE(it != env().end(), "the test environment has no " << name);
  return it->second;
}

std::string source_root() {
  const char* s = std::getenv("SOURCE_ROOT");
  REQUIRE_MESSAGE(s != nullptr, "SOURCE_ROOT is not set (meson sets it)");
  return s;
}

std::string testenv_tool(const std::string& name) { return source_root() + "/tests/testenv/" + name; }

std::string unique_name(std::string_view prefix) {
  // The lost-answer matrices make fixtures from several threads at once.
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  static const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::string s(prefix);
  s += '-';
  for (int i = 0; i < 6; ++i) s += alphabet[rng() % 36];
  return s;
}

CommandResult kubectl_result(const std::vector<std::string>& args, std::string_view stdin_data) {
  std::vector<std::string> argv{var("TESTENV_KUBECTL"), "--kubeconfig", var("KUBECONFIG")};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {}, stdin_data);
}

std::string kubectl(const std::vector<std::string>& args, std::string_view stdin_data) {
  auto r = kubectl_result(args, stdin_data);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  REQUIRE_MESSAGE(r.rc == 0, "kubectl " << joined << "failed: " << r.err);
  return r.out;
}

Namespace::Namespace(std::string_view prefix) : name_(unique_name(prefix)) {
  kubectl({"create", "namespace", name_});
}

Namespace::~Namespace() {
  if (std::getenv("E2E_KEEP") != nullptr) return;
  kubectl_result({"delete", "namespace", name_, "--wait=false", "--ignore-not-found"});
}

DeletionPolicy::DeletionPolicy(const std::string& ns) : name_("e2e-member-deletion-" + ns), ns_(ns) {
  const std::string manifest = R"(apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: )" + name_ + R"(
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups: ["etcd-operator.cozystack.io"]
      apiVersions: ["*"]
      operations: ["DELETE"]
      resources: ["etcdmembers"]
  validations:
  - expression: >-
      has(oldObject.metadata.annotations) &&
      'etcd-operator.cozystack.io/allow-deletion' in oldObject.metadata.annotations &&
      oldObject.metadata.annotations['etcd-operator.cozystack.io/allow-deletion'] == 'true'
    message: ")" + std::string(kMessage) + R"("
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: )" + name_ + R"(
spec:
  policyName: )" + name_ + R"(
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: )" + ns + "\n";
  kubectl({"apply", "-f", "-"}, manifest);
}

void DeletionPolicy::wait_enforced(const std::string& member) {
  probe_ = member;
  CommandResult r;
  for (int i = 0; i < 300; ++i) {
    r = kubectl_result({"delete", "etcdmembers.etcd-operator.cozystack.io", member, "-n", ns_, "--dry-run=server"});
    if (r.rc != 0 && r.err.find(kMessage) != std::string::npos) return;
    usleep(100000);
  }
  FAIL("the deletion policy " << name_ << " is not enforced: " << r.rc << " " << r.out << r.err);
}

DeletionPolicy::~DeletionPolicy() {
  kubectl_result({"delete", "validatingadmissionpolicybinding", name_, "--ignore-not-found"});
  kubectl_result({"delete", "validatingadmissionpolicy", name_, "--ignore-not-found"});
  // Until the apiserver forgets it, a teardown's deletes would be denied.
  for (int i = 0; i < 100 && !probe_.empty(); ++i) {
    auto r = kubectl_result({"delete", "etcdmembers.etcd-operator.cozystack.io", probe_, "-n", ns_, "--dry-run=server"});
    if (r.err.find(kMessage) == std::string::npos) return;
    usleep(100000);
  }
}

EtcdCluster::EtcdCluster(EtcdClusterOptions options) {
  env();  // exports the environment so the cluster registers with it
  char tmpl[] = "/tmp/e2e-etcd.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  dir_ = tmpl;
  rmdir(dir_.c_str());  // etcd-cluster creates it
  std::vector<std::string> argv{testenv_tool("etcd-cluster"), "up", "--dir", dir_, "--version", options.version,
                                "--members", std::to_string(options.members)};
  if (options.tls) argv.push_back("--tls");
  if (options.auth) argv.push_back("--auth");
  argv.insert(argv.end(), options.extra.begin(), options.extra.end());
  auto r = run(argv);
  REQUIRE_MESSAGE(r.rc == 0, "etcd-cluster up failed: " << r.err);
  std::ifstream f(dir_ + "/cluster.json");
  info_ = nlohmann::json::parse(f);
}

EtcdCluster::~EtcdCluster() {
  if (std::getenv("E2E_KEEP") != nullptr) return;
  run({testenv_tool("etcd-cluster"), "down", "--dir", dir_});
}

std::vector<std::string> EtcdCluster::member_names() const {
  std::vector<std::string> v;
  for (const auto& m : info_["members"]) v.push_back(m["name"]);
  return v;
}

std::vector<std::string> EtcdCluster::client_urls() const {
  std::vector<std::string> v;
  for (const auto& m : info_["members"]) v.push_back(m["clientURL"]);
  return v;
}

std::vector<std::string> EtcdCluster::ip_client_urls() const {
  std::vector<std::string> v;
  for (const auto& m : info_["members"]) v.push_back(m["ipClientURL"]);
  return v;
}

std::string EtcdCluster::pki(const std::string& file) const {
  if (!info_.contains("pki")) return {};
  return info_["pki"].value(file, std::string());
}

std::string EtcdCluster::etcdctl_path() const { return info_["bin"].get<std::string>() + "/etcdctl"; }
std::string EtcdCluster::etcdutl_path() const { return info_["bin"].get<std::string>() + "/etcdutl"; }

void EtcdCluster::act(const std::string& verb, const std::string& member) {
  auto r = run({testenv_tool("etcd-cluster"), verb, "--dir", dir_, "--member", member});
  REQUIRE_MESSAGE(r.rc == 0, "etcd-cluster " << verb << " " << member << " failed: " << r.err);
}

CommandResult EtcdCluster::ctl_result(const std::vector<std::string>& args) {
  std::vector<std::string> argv{testenv_tool("etcd-cluster"), "ctl", "--dir", dir_, "--"};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

std::string EtcdCluster::ctl(const std::vector<std::string>& args) {
  auto r = ctl_result(args);
  std::string joined;
  for (const auto& a : args) joined += a + " ";
  REQUIRE_MESSAGE(r.rc == 0, "etcdctl " << joined << "failed: " << r.err);
  return r.out;
}

}  // namespace e2e
