#include "admin/operator_state.h"

#include <ctime>

#include "base/json_at.h"
#include "base/rfc3339.h"
#include "kube/client.h"
#include "operator/names.h"
#include "operator/watch.h"

namespace admin {

namespace {

using json = nlohmann::json;


// The namespaces the operator's container watches; empty = all.
std::vector<std::string> watched(const json& deployment) {
  const json& containers = base::array_at(deployment, "/spec/template/spec/containers");
  for (const auto& c : containers) {
    if (base::string_at(c, "/name") == op::kOperatorContainer) return op::watched_namespaces(c);
  }
  return {};
}

}  // namespace

OperatorState judge_operator(const json& lease, const json& deployment, const std::string& cluster_ns,
                             std::chrono::system_clock::time_point now) {
  OperatorState s;
  // Scaled to 0 is what a user did on purpose, and said before any other
  // cause: the namespace filter is moot while nothing runs.
  const bool scaled_down = base::int_at(deployment, "/spec/replicas", -1) == 0;
  const std::string scaled_down_reason = "the operator is scaled down (its Deployment has spec.replicas 0)";
  if (deployment.is_object()) {
    if (!op::watches(watched(deployment), cluster_ns)) {
      s.active = false;
      s.reason = scaled_down ? scaled_down_reason
                             : "the operator watches other namespaces only (" + std::string(op::kWatchNamespaceEnv) + ")";
      return s;
    }
    if (base::int_at(deployment, "/status/readyReplicas") > 0) {
      s.reason = "the operator Deployment has ready replicas";
      return s;
    }
  }
  if (base::find_at(lease, "/spec") != nullptr) {
    const json& spec = base::object_at(lease, "/spec");
    const std::string holder = base::string_at(spec, "/holderIdentity");
    auto renew = base::parse_rfc3339_seconds(base::string_at(spec, "/renewTime"));
    long long duration = base::int_at(spec, "/leaseDurationSeconds");
    if (!holder.empty() && renew && *renew + duration + 5 > std::chrono::system_clock::to_time_t(now)) {
      s.reason = "the operator's leader Lease is held by " + holder;
      return s;
    }
  }
  s.active = false;
  s.reason = scaled_down             ? scaled_down_reason
             : deployment.is_object() ? "no ready operator replica and no live leader Lease"
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
  auto usable = [](const auto& r) { return r.ok() || r.error().kind == base::ErrorKind::NotFound; };
  const std::string looked_at =
      "Deployment " + ns + "/" + name + " and Lease " + ns + "/" + std::string(op::kOperatorLease);
  if (!usable(lease) && !usable(deployment)) {
    OperatorState s;
    s.unknown = true;
    s.reason = "neither the operator's Lease nor its Deployment can be read: counted as active";
    s.looked_at = looked_at;
    return s;
  }
  OperatorState s = judge_operator(lease.ok() ? *lease : json(), deployment.ok() ? *deployment : json(), cluster_ns,
                                   std::chrono::system_clock::now());
  s.looked_at = looked_at;
  return s;
}

}  // namespace admin
