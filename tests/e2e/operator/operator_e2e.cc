#include "operator_e2e.h"

#include <tuple>

#include <doctest/doctest.h>

#include <cstdlib>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>
#include <tuple>

namespace e2e {

using json = nlohmann::json;

namespace {

std::string temp_dir(const std::string& prefix) {
  std::string tmpl = var("TESTENV_DIR") + "/" + unique_name(prefix);
  return tmpl;
}

}  // namespace

Operator::Operator(std::string deployment, const std::string& watch, int replicas, const std::string& image)
    : deployment_(std::move(deployment)) {
  auto slash = deployment_.find('/');
  REQUIRE(slash != std::string::npos);
  ns_ = deployment_.substr(0, slash);
  name_ = deployment_.substr(slash + 1);
  dir_ = temp_dir("operator");
  std::vector<std::string> argv = {testenv_tool("operator"), "start", "--dir", dir_, "--deployment", deployment_,
                                   "--watch-namespace", watch, "--replicas", std::to_string(replicas)};
  if (!image.empty()) argv.insert(argv.end(), {"--image", image});
  auto r = run(argv, {{"TESTENV_ENV_FILE", var("TESTENV_DIR") + "/env"}});
  REQUIRE_MESSAGE(r.rc == 0, "operator start failed: " << r.err);
}

Operator::~Operator() {
  run({testenv_tool("operator"), "stop", "--dir", dir_}, {{"TESTENV_ENV_FILE", var("TESTENV_DIR") + "/env"}});
}

void Operator::scale(int replicas) {
  kubectl({"-n", ns_, "scale", "deployment", name_, "--replicas", std::to_string(replicas)});
}

void Operator::wait_leading(std::chrono::seconds timeout) {
  wait_until(
      [&] {
        auto d = kubectl_result({"-n", ns_, "get", "deployment", name_, "-o", "json"});
        if (d.rc != 0) return false;
        if (json::parse(d.out)["status"].value("readyReplicas", 0) < 1) return false;
        return log().find("successfully acquired lease") != std::string::npos;
      },
      timeout, "the operator " + deployment_ + " to be ready and lead");
}

std::string Operator::log() const {
  std::ifstream f(dir_ + "/logs/manager.log");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

PodRunner::PodRunner(std::string ns) : ns_(std::move(ns)) {
  dir_ = temp_dir("pod-runner");
  auto r = run({testenv_tool("pod-runner"), "start", "--namespace", ns_, "--dir", dir_},
               {{"TESTENV_ENV_FILE", var("TESTENV_DIR") + "/env"}});
  REQUIRE_MESSAGE(r.rc == 0, "pod-runner start failed: " << r.err);
}

PodRunner::~PodRunner() {
  run({testenv_tool("pod-runner"), "stop", "--dir", dir_}, {{"TESTENV_ENV_FILE", var("TESTENV_DIR") + "/env"}});
}

std::vector<std::string> operator_errors(const Operator& op, const std::string& ns, std::size_t from) {
  std::vector<std::string> out;
  const std::string log = op.log();
  std::size_t start = std::min(from, log.size());
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    std::string line = log.substr(start, end - start);
    start = end + 1;
    if (line.find("\tERROR\t") == std::string::npos || line.find("\"" + ns + "\"") == std::string::npos) continue;
    if (line.find("the object has been modified") != std::string::npos) continue;
    if (line.find("etcdserver: unhealthy cluster") != std::string::npos) continue;
    // Its MemberList dials the members its status lists; one just removed,
    // or a loaded machine, makes that call time out, and the next reconcile
    // lists again. Seen in passing runs of e2e-operator-membership; it says
    // nothing about the objects the tools wrote.
    if (line.find("MemberList failed") != std::string::npos &&
        line.find("context deadline exceeded") != std::string::npos) {
      continue;
    }
    // Its informer cache lags its own creates: a second pass creates the Pod
    // (or the PVC) it made a moment ago again and fails; it does so at
    // bootstrap too.
    if (line.find("already exists") != std::string::npos &&
        (line.find("pods \\\"") != std::string::npos || line.find("persistentvolumeclaims \\\"") != std::string::npos)) {
      continue;
    }
    // A stale cached copy of a member it has just released runs the
    // finalizer once more ("member not found", or a dial that times out);
    // the object is gone by then (its cluster controller already scales on).
    // Only an EtcdMember that still exists is wedged. Likewise a reconcile
    // queued just before the release finds the member itself gone
    // ('etcdmembers... "<name>" not found'; seen once after unwedge).
    const std::string key = "\"EtcdMember\": {\"name\":\"";
    if (auto at = line.find(key); at != std::string::npos) {
      const std::string m = line.substr(at + key.size(), line.find('"', at + key.size()) - at - key.size());
      const bool finalizer_retry = line.find("failed to remove member from etcd") != std::string::npos;
      const bool itself_gone = line.find("etcdmembers.etcd-operator.cozystack.io \\\"" + m + "\\\" not found") !=
                               std::string::npos;
      if ((finalizer_retry || itself_gone) &&
          kubectl_result({"-n", ns, "get", "etcdmembers.etcd-operator.cozystack.io", m}).rc != 0) {
        continue;
      }
    }
    out.push_back(line.substr(0, 600));
  }
  return out;
}

std::set<std::string> object_names(const json& items) {
  std::set<std::string> out;
  for (const auto& m : items) out.insert(m["metadata"]["name"].get<std::string>());
  return out;
}

std::string kubectl_etcd_path() {
  const char* p = std::getenv("KUBECTL_ETCD");
  REQUIRE_MESSAGE(p != nullptr, "KUBECTL_ETCD is not set (meson sets it)");
  return p;
}

void wait_until(const std::function<bool()>& ready, std::chrono::seconds timeout, const std::string& what) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) FAIL("timed out after " << timeout.count() << " s waiting for " << what);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

json get_json(const std::vector<std::string>& args) {
  std::vector<std::string> a = {"get"};
  a.insert(a.end(), args.begin(), args.end());
  a.insert(a.end(), {"-o", "json"});
  return json::parse(kubectl(a));
}

json condition(const json& obj, const std::string& type) {
  for (const auto& c : obj.value("/status/conditions"_json_pointer, json::array())) {
    if (c.value("type", "") == type) return c;
  }
  return nullptr;
}

namespace {

std::map<std::string, std::string> field_of(const std::string& ns, const std::vector<std::string>& kinds,
                                            const char* field) {
  std::string joined;
  for (const auto& k : kinds) joined += (joined.empty() ? "" : ",") + k;
  std::map<std::string, std::string> out;
  const json items = get_json({"-n", ns, joined})["items"];
  for (const auto& o : items) {
    out[o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>()] =
        o["metadata"][field].get<std::string>();
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> versions(const std::string& ns, const std::vector<std::string>& kinds) {
  return field_of(ns, kinds, "resourceVersion");
}

std::map<std::string, std::string> uids(const std::string& ns, const std::vector<std::string>& kinds) {
  return field_of(ns, kinds, "uid");
}

std::string unconverged(const std::string& ns, const std::string& cluster) {
  auto c = kubectl_result({"-n", ns, "get", "etcdclusters.etcd-operator.cozystack.io", cluster, "-o", "json"});
  if (c.rc != 0) return "the EtcdCluster cannot be read: " + c.err;
  json ec = json::parse(c.out);
  for (const auto& [type, status, reason] : {std::tuple<const char*, const char*, const char*>{"Available", "True", nullptr},
                                              {"Progressing", "False", "Reconciled"},
                                              {"Degraded", "False", nullptr}}) {
    json k = condition(ec, type);
    if (!k.is_object() || k.value("status", "") != status || (reason != nullptr && k.value("reason", "") != reason)) {
      return std::string(type) + " is " + (k.is_object() ? k.dump() : "absent");
    }
  }
  const long long want = ec["spec"].value("replicas", 3LL);
  if (ec["status"].value("readyMembers", -1LL) != want) {
    return "status.readyMembers " + std::to_string(ec["status"].value("readyMembers", -1LL)) + ", want " + std::to_string(want);
  }
  if (ec["status"].value("/observed/replicas"_json_pointer, -1LL) != want) return "status.observed.replicas is not " + std::to_string(want);
  if (ec["status"].contains("progressDeadline") && !ec["status"]["progressDeadline"].is_null()) {
    return "status.progressDeadline is set: " + ec["status"]["progressDeadline"].dump();
  }
  auto members = get_json({"-n", ns, "etcdmembers.etcd-operator.cozystack.io", "-l",
                           "etcd-operator.cozystack.io/cluster=" + cluster})["items"];
  long long running = 0;
  for (const auto& m : members) {
    const std::string name = m["metadata"].value("name", "");
    if (m["metadata"].contains("deletionTimestamp")) return "EtcdMember " + name + " is being deleted";
    ++running;
    json ready = condition(m, "Ready");
    if (!ready.is_object() || ready.value("status", "") != "True") {
      return "EtcdMember " + name + " Ready is " + (ready.is_object() ? ready.dump() : "absent");
    }
    if (m["status"].value("memberID", "").empty()) return "EtcdMember " + name + " has no status.memberID";
  }
  if (running != want) return std::to_string(running) + " EtcdMembers, want " + std::to_string(want);
  return {};
}

bool converged(const std::string& ns, const std::string& cluster) { return unconverged(ns, cluster).empty(); }

}  // namespace e2e
