#include "admin/operator_state.h"

#include <ctime>
#include <sstream>

#include "cli/rfc3339.h"
#include "kube/client.h"
#include "operator/names.h"

namespace admin {

namespace {

using json = nlohmann::json;


// The namespaces the operator watches; empty = all.
std::vector<std::string> watched(const json& deployment) {
  std::string value;
  const json containers = deployment.contains("/spec/template/spec/containers"_json_pointer)
                              ? deployment["spec"]["template"]["spec"]["containers"]
                              : json::array();
  for (const auto& c : containers) {
    if (c.value("name", "") != op::kOperatorContainer) continue;
    for (const auto& e : c.value("env", json::array())) {
      if (e.value("name", "") == op::kWatchNamespaceEnv) value = e.value("value", "");
    }
    const std::string prefix = std::string(op::kWatchNamespaceArg) + "=";
    for (const char* key : {"args", "command"}) {
      for (const auto& a : c.value(key, json::array())) {
        if (a.is_string() && a.get<std::string>().rfind(prefix, 0) == 0) value = a.get<std::string>().substr(prefix.size());
      }
    }
  }
  std::vector<std::string> out;
  std::stringstream in(value);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

}  // namespace

OperatorState judge_operator(const json& lease, const json& deployment, const std::string& cluster_ns,
                             std::chrono::system_clock::time_point now) {
  OperatorState s;
  if (deployment.is_object()) {
    auto ns = watched(deployment);
    bool covers = ns.empty();
    for (const auto& n : ns) covers = covers || n == cluster_ns;
    if (!covers) {
      s.active = false;
      s.reason = "the operator watches other namespaces only (" + std::string(op::kWatchNamespaceEnv) + ")";
      return s;
    }
    if (deployment.contains("/status/readyReplicas"_json_pointer) &&
        deployment["status"]["readyReplicas"].is_number_integer() &&
        deployment["status"]["readyReplicas"].get<long long>() > 0) {
      s.reason = "the operator Deployment has ready replicas";
      return s;
    }
  }
  if (lease.is_object() && lease.contains("spec")) {
    const json spec = lease["spec"];
    const std::string holder = spec.value("holderIdentity", "");
    auto renew = cli::parse_rfc3339_seconds(spec.value("renewTime", ""));
    long long duration = spec.contains("leaseDurationSeconds") && spec["leaseDurationSeconds"].is_number_integer()
                             ? spec["leaseDurationSeconds"].get<long long>()
                             : 0;
    if (!holder.empty() && renew && *renew + duration + 5 > std::chrono::system_clock::to_time_t(now)) {
      s.reason = "the operator's leader Lease is held by " + holder;
      return s;
    }
  }
  s.active = false;
  s.reason = deployment.is_object() ? "no ready operator replica and no live leader Lease"
                                    : "no operator Deployment and no live leader Lease";
  return s;
}

OperatorState operator_state(kube::Client& kube, const std::string& coordinates, const std::string& cluster_ns) {
  std::string ns = std::string(op::kDefaultControllerNamespace), name = coordinates;
  if (auto slash = coordinates.find('/'); slash != std::string::npos) {
    ns = coordinates.substr(0, slash);
    name = coordinates.substr(slash + 1);
  }
  auto lease = kube.get(kube::resources::leases, ns, op::kOperatorLease);
  auto deployment = kube.get(kube::resources::deployments, ns, name);
  auto usable = [](const auto& r) { return r.ok() || r.error().kind == cli::ErrorKind::NotFound; };
  if (!usable(lease) && !usable(deployment)) {
    OperatorState s;
    s.unknown = true;
    s.reason = "neither the operator's Lease nor its Deployment can be read: counted as active";
    return s;
  }
  return judge_operator(lease.ok() ? *lease : json(), deployment.ok() ? *deployment : json(), cluster_ns,
                        std::chrono::system_clock::now());
}

}  // namespace admin
