// What e2e tests need from tests/testenv: the shared environment's variables
// (TESTENV_ENV_FILE, written by tests/testenv/up), commands run as child
// processes, a namespace of their own, and etcd clusters of their own.
// Without an environment a test fails; it is never skipped.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace e2e {

struct CommandResult {
  int rc = -1;
  std::string out;
  std::string err;
};

// Runs argv (no shell), with extra environment variables, optional stdin.
CommandResult run(const std::vector<std::string>& argv,
                  const std::map<std::string, std::string>& extra_env = {},
                  std::string_view stdin_data = {});

// Parses a file of `export KEY='value'` lines (what up and etcd-cluster write).
std::map<std::string, std::string> parse_env_file(const std::string& path);

// The shared environment's variables; a test without TESTENV_ENV_FILE fails.
const std::map<std::string, std::string>& env();
std::string var(const std::string& name);
std::string source_root();
std::string testenv_tool(const std::string& name);  // path of tests/testenv/<name>

// A DNS-1123 name: prefix + "-" + random suffix.
std::string unique_name(std::string_view prefix);

// kubectl v1.36.3 of the environment, as the admin; fails the test on rc != 0.
std::string kubectl(const std::vector<std::string>& args, std::string_view stdin_data = {});
CommandResult kubectl_result(const std::vector<std::string>& args, std::string_view stdin_data = {});

class Namespace {
 public:
  explicit Namespace(std::string_view prefix);
  ~Namespace();
  Namespace(const Namespace&) = delete;
  Namespace& operator=(const Namespace&) = delete;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// The ValidatingAdmissionPolicy newer operators install
// (docs/operator-contract.md#deleting-an-etcdmember), equivalent and bound to
// one namespace only: DELETE of an EtcdMember is denied unless the object
// carries etcd-operator.cozystack.io/allow-deletion=true. The destructor
// removes it (and waits until the apiserver lets go), so it must go before
// the namespace's objects are torn down.
class DeletionPolicy {
 public:
  explicit DeletionPolicy(const std::string& ns);
  ~DeletionPolicy();
  DeletionPolicy(const DeletionPolicy&) = delete;
  DeletionPolicy& operator=(const DeletionPolicy&) = delete;
  const std::string& name() const { return name_; }
  // The apiserver loads policies asynchronously: waits until a server-side
  // dry-run delete of `member` (an EtcdMember that exists) is denied.
  void wait_enforced(const std::string& member);
  // The message of a denial, to look for in a program's stderr.
  static constexpr const char* kMessage = "EtcdMember deletion needs etcd-operator.cozystack.io/allow-deletion=true";

 private:
  std::string name_, ns_, probe_;
};

struct EtcdClusterOptions {
  std::string version = "3.6";  // 3.4, 3.5 or 3.6
  int members = 3;
  bool tls = false;
  bool auth = false;  // needs tls
  std::vector<std::string> extra;  // more arguments for `etcd-cluster up`
};

// A real etcd cluster started by tests/testenv/etcd-cluster in a temporary
// directory, taken down when the object goes.
class EtcdCluster {
 public:
  explicit EtcdCluster(EtcdClusterOptions options);
  ~EtcdCluster();
  EtcdCluster(const EtcdCluster&) = delete;
  EtcdCluster& operator=(const EtcdCluster&) = delete;

  const nlohmann::json& info() const { return info_; }  // cluster.json
  const std::string& dir() const { return dir_; }
  std::vector<std::string> member_names() const;
  std::vector<std::string> client_urls() const;     // advertised (DNS names)
  std::vector<std::string> ip_client_urls() const;  // by IP
  std::string pki(const std::string& file) const;   // e.g. "ca.crt"; empty without TLS
  std::string etcdctl_path() const;
  std::string etcdutl_path() const;

  // stop|kill|pause|resume|start|restart one member.
  void act(const std::string& verb, const std::string& member);
  // etcdctl against the cluster with its client certificate; fails the test on rc != 0.
  std::string ctl(const std::vector<std::string>& args);
  CommandResult ctl_result(const std::vector<std::string>& args);

 private:
  std::string dir_;
  nlohmann::json info_;
};

}  // namespace e2e
