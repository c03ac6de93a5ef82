#include "operator_cluster.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <deque>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <thread>

#include "etcd/member_id.h"

namespace e2e {

using json = nlohmann::json;

namespace {

std::string hex(const json& id) { return etcd::format_member_id(id.get<std::uint64_t>()); }

// With peer client-certificate auth etcd checks the dialling peer's address
// against its certificate: in a cluster the Pod IP's PTR record falls under
// the wildcard; here every member dials from 127.0.0.1, hence that IP SAN.
void make_pki(const std::string& dir, const std::string& c, const std::string& ns) {
  std::filesystem::create_directories(dir);
  const std::string wildcard = "DNS:*." + c + "." + ns + ".svc";
  auto r = run({"bash", "-c",
                ". \"$1/lib/pki.sh\"; d=$2; pki_ca \"$d\" ca && "
                "pki_cert \"$d\" ca server /CN=etcd-server both \"$3\" \"DNS:$4\" \"DNS:$5\" DNS:localhost IP:127.0.0.1 && "
                "pki_cert \"$d\" ca peer /CN=etcd-peer both \"$3\" IP:127.0.0.1 && "
                "pki_cert \"$d\" ca operator-client /CN=etcd-operator-client client",
                "pki", testenv_tool(""), dir, wildcard, c + "-client." + ns + ".svc", c + "." + ns + ".svc"});
  REQUIRE_MESSAGE(r.rc == 0, "making certificates: " << r.err);
}

void tls_secret(const std::string& ns, const std::string& name, const std::string& dir, const std::string& cert) {
  kubectl({"-n", ns, "create", "secret", "generic", name, "--type", "kubernetes.io/tls",
           "--from-file=tls.crt=" + dir + "/" + cert + ".crt", "--from-file=tls.key=" + dir + "/" + cert + ".key",
           "--from-file=ca.crt=" + dir + "/ca.crt"});
}

}  // namespace

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

OperatorCluster::OperatorCluster(const std::string& prefix, Options o) : ns_(prefix), tls_(o.tls) {
  dir_ = var("TESTENV_DIR") + "/" + ns() + "-pki";
  runner_ = std::make_unique<PodRunner>(ns());
  // An image repository of its own: `etcd-migrate adopt` refuses while any
  // Pod in the cluster runs the image of the operator it hands over to, and
  // adoption tests run beside this one.
  op_ = std::make_unique<Operator>(deployment(), ns(), 1, "testenv.invalid/etcd-operator-e2e:v0.5.0");
  json spec = {{"replicas", o.replicas}, {"version", "3.6.11"}, {"storage", {{"size", "1Gi"}}}};
  if (tls_) {
    make_pki(dir_, name_, ns());
    tls_secret(ns(), name_ + "-server-tls", dir_, "server");
    tls_secret(ns(), name_ + "-peer-tls", dir_, "peer");
    tls_secret(ns(), name_ + "-operator-client-tls", dir_, "operator-client");
    spec["tls"] = {{"client", {{"serverSecretRef", {{"name", name_ + "-server-tls"}}},
                               {"operatorClientSecretRef", {{"name", name_ + "-operator-client-tls"}}}}},
                   {"peer", {{"secretRef", {{"name", name_ + "-peer-tls"}}}}}};
  }
  json cluster = {{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"},
                  {"kind", "EtcdCluster"},
                  {"metadata", {{"name", name_}, {"namespace", ns()}}},
                  {"spec", spec}};
  kubectl({"apply", "-f", "-"}, cluster.dump());
  op_->wait_leading();
  wait_converged("the operator to bootstrap " + ns() + "/" + name_);
}

OperatorCluster::~OperatorCluster() {
  if (std::getenv("E2E_KEEP") != nullptr) return;
  op_.reset();
  runner_.reset();
  auto l = kubectl_result({"-n", ns(), "get", "etcdmembers.etcd-operator.cozystack.io", "-o", "name"});
  std::istringstream names(l.out);
  for (std::string m; std::getline(names, m);) {
    kubectl_result({"-n", ns(), "patch", m, "--type", "merge", "-p", R"({"metadata":{"finalizers":null}})"});
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

CommandResult OperatorCluster::tool(const std::vector<std::string>& cmd, const std::vector<std::string>& args) const {
  std::vector<std::string> argv{kubectl_etcd_path()};
  argv.insert(argv.end(), cmd.begin(), cmd.end());
  for (const auto& a : {std::string("-c"), name_, std::string("-n"), ns(), std::string("--connect"),
                        std::string("direct"), std::string("--operator"), deployment()}) {
    argv.push_back(a);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {{"KUBECONFIG", var("KUBECONFIG")}, {"NO_COLOR", "1"}});
}

CommandResult OperatorCluster::etcdctl(const std::vector<std::string>& args) const { return etcdctl_at({}, args); }

std::string OperatorCluster::etcd_log_path(const std::string& member) const {
  return runner_->dir() + "/pods/" + member + "/etcd.log";
}

std::string OperatorCluster::endpoint(const std::string& pod) const {
  return (tls_ ? "https://" : "http://") + pod + "." + name_ + "." + ns() + ".svc:2379";
}

std::vector<std::string> OperatorCluster::running_endpoints() const {
  std::vector<std::string> out;
  const json pods = get_json({"-n", ns(), "pods", "-l", "etcd-operator.cozystack.io/cluster=" + name_});
  for (const auto& p : pods["items"]) {
    if (p["metadata"].contains("deletionTimestamp") || !p["status"].contains("podIP")) continue;
    out.push_back(endpoint(p["metadata"]["name"]));
  }
  return out;
}

CommandResult OperatorCluster::etcdctl_at(const std::string& member, const std::vector<std::string>& args) const {
  // One member by its DNS name (no API read: a writer calls this in a loop), or every running Pod.
  std::string endpoints;
  for (const auto& e : member.empty() ? running_endpoints() : std::vector<std::string>{endpoint(member)})
    endpoints += (endpoints.empty() ? "" : ",") + e;
  std::vector<std::string> argv{var("TESTENV_ETCD_36") + "/etcdctl", "--endpoints", endpoints,
                                "--dial-timeout", "3s", "--command-timeout", "10s"};
  if (tls_) {
    argv.insert(argv.end(), {"--cacert", dir_ + "/ca.crt", "--cert", dir_ + "/operator-client.crt", "--key",
                             dir_ + "/operator-client.key"});
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv);
}

etcd::Config OperatorCluster::etcd_config(const std::string& first) const {
  etcd::Config config;
  if (!first.empty()) config.endpoints.push_back(endpoint(first));
  for (auto& e : running_endpoints())
    if (first.empty() || e != config.endpoints.front()) config.endpoints.push_back(std::move(e));
  if (tls_) {
    config.tls.ca_file = dir_ + "/ca.crt";
    config.tls.cert_file = dir_ + "/operator-client.crt";
    config.tls.key_file = dir_ + "/operator-client.key";
  }
  return config;
}

json OperatorCluster::etcd_members() const {
  // A linearizable read fails while the voters elect a leader; try a few times.
  CommandResult r;
  for (int i = 0; i < 10; ++i) {
    r = etcdctl({"member", "list", "-w", "json"});
    if (r.rc == 0) {
      json doc = json::parse(r.out, nullptr, false);
      REQUIRE_MESSAGE((doc.is_object() && doc.contains("members")), "etcdctl member list: " << r.out << r.err);
      return doc["members"];
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  FAIL("etcdctl member list: " << r.err);
  return json();
}

json OperatorCluster::members() const {
  json out = json::array();
  const json list = get_json({"-n", ns(), "etcdmembers.etcd-operator.cozystack.io", "-l",
                              "etcd-operator.cozystack.io/cluster=" + name_});
  for (const auto& m : list["items"]) {
    if (!m["metadata"].contains("deletionTimestamp")) out.push_back(m);
  }
  return out;
}

std::map<std::string, std::string> OperatorCluster::etcd_ids() const {
  std::map<std::string, std::string> out;
  for (const auto& m : etcd_members()) out[m.value("name", "")] = hex(m["ID"]);
  return out;
}

std::string OperatorCluster::leader() const {
  auto r = etcdctl({"endpoint", "status", "--cluster", "-w", "json"});
  REQUIRE_MESSAGE(r.rc == 0, "endpoint status: " << r.err);
  std::uint64_t leader = 0;
  for (const auto& s : json::parse(r.out)) leader = s["Status"]["leader"].get<std::uint64_t>();
  for (const auto& m : etcd_members()) {
    if (m["ID"].get<std::uint64_t>() == leader) return m.value("name", "");
  }
  FAIL("no member leads");
  return {};
}

std::string OperatorCluster::membership_mismatch() const {
  std::map<std::string, std::string> etcd;
  std::string out;
  for (const auto& m : etcd_members()) {
    etcd[m.value("name", "")] = hex(m["ID"]);
    if (m.value("isLearner", false)) out += "learner " + m.value("name", "") + "; ";
  }
  std::map<std::string, std::string> objects;
  for (const auto& m : members()) {
    const std::string name = m["metadata"]["name"];
    objects[name] = m["status"].value("memberID", "");
    if (!m["status"].value("isVoter", false)) out += "EtcdMember " + name + " not isVoter; ";
  }
  if (etcd != objects) out += "etcd " + json(etcd).dump() + " != EtcdMembers " + json(objects).dump();
  return out;
}

void OperatorCluster::check_settled(std::size_t want, const std::string& where) const {
  INFO(where);
  CHECK(etcd_members().size() == want);
  CHECK(membership_mismatch() == "");
  check_clean(where);
}

void OperatorCluster::check_clean(const std::string& where) const {
  auto r = tool({"check"});
  INFO(where << ": check: " << r.out << r.err);
  CHECK(r.rc == 0);
  CHECK(r.out.find("o findings") != std::string::npos);
}

void OperatorCluster::wait_converged(const std::string& what, std::chrono::seconds timeout) const {
  const auto end = std::chrono::steady_clock::now() + timeout;
  for (std::string why = unconverged(ns(), name_); !why.empty(); why = unconverged(ns(), name_)) {
    if (std::chrono::steady_clock::now() > end) {
      // What a reader of a CI log needs to tell a stalled operator from a
      // member that never came up: the operator's last log lines (not its
      // stack traces), the pod runner's, and each member's last etcd line.
      std::istringstream log(op_->log());
      std::deque<std::string> last;
      for (std::string line; std::getline(log, line);) {
        if (line.rfind("20", 0) != 0) continue;
        last.push_back(line.substr(0, 500));
        if (last.size() > 8) last.pop_front();
      }
      std::ostringstream report;
      report << "\nthe operator's last lines:";
      for (const auto& line : last) report << "\n  " << line;
      {
        std::ifstream f(runner_->dir() + "/logs/runner.log");
        std::deque<std::string> said;
        for (std::string line; std::getline(f, line);) {
          said.push_back(line.substr(0, 300));
          if (said.size() > 4) said.pop_front();
        }
        report << "\nthe pod runner's last lines:";
        for (const auto& line : said) report << "\n  " << line;
      }
      std::error_code ec;
      for (const auto& pod : std::filesystem::directory_iterator(runner_->dir() + "/pods", ec)) {
        std::ifstream f(pod.path() / "etcd.log");
        std::string line, said;
        while (std::getline(f, line)) {
          if (!line.empty()) said = line;
        }
        report << "\n" << pod.path().filename().string() << "'s etcd last said: " << said.substr(0, 400);
      }
      FAIL("timed out after " << timeout.count() << " s waiting for " << what << ": " << why << report.str());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

std::vector<std::string> OperatorCluster::operator_errors(std::size_t from) const {
  return e2e::operator_errors(*op_, ns(), from);
}

}  // namespace e2e
