#include "admin/operator_scale.h"

#include <chrono>
#include <thread>

#include "admin/kube_util.h"
#include "admin/member_exec.h"
#include "admin/operator_state.h"
#include "base/json_at.h"
#include "kube/client.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::pair<std::string, std::string> operator_coords(const std::string& coords) {
  std::string c = coords.empty() ? std::string(op::kDefaultNewController) : coords;
  auto slash = c.find('/');
  if (slash == std::string::npos) return {std::string(op::kDefaultControllerNamespace), c};
  return {c.substr(0, slash), c.substr(slash + 1)};
}

base::Status stop_operator(MemberEnv& env, std::chrono::milliseconds timeout,
                          const std::function<void(const std::string&)>& progress) {
  auto [ns, name] = operator_coords(env.operator_deployment);
  kube::Client& kube = *env.kube;
  auto d = kube.get(kube::resources::deployments, ns, name);
  if (!d) return std::move(d).error();
  const std::string ann = std::string(op::kAnnReplicasBeforeBreakGlass);
  json anns = base::object_at(*d, "/metadata/annotations");
  long long replicas = base::int_at(*d, "/spec/replicas", 1);
  json patch = {{"spec", {{"replicas", 0}}}};
  if (!anns.contains(ann)) patch["metadata"]["annotations"][ann] = std::to_string(replicas);
  auto r = kube.patch(kube::resources::deployments, ns, name, kube::PatchType::Merge, guarded(*d, patch));
  if (!r) return std::move(r).error();
  const auto end = Clock::now() + timeout;
  for (;;) {
    auto state = operator_state(kube, ns + "/" + name, env.session->target.ns);
    bool pods_left = false;
    kube::ListOptions lo;
    std::string sel;
    const json labels = base::object_at(*d, "/spec/selector/matchLabels");
    for (const auto& [k, v] : labels.items()) {
      sel += (sel.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : v.dump());
    }
    lo.label_selector = sel;
    if (!sel.empty()) {
      auto pods = kube.list(kube::resources::pods, ns, lo);
      pods_left = pods && !base::array_at(*pods, "/items").empty();
    }
    if (!state.active && !pods_left) return {};
    if (Clock::now() > end) {
      return base::make_error(base::ErrorKind::Timeout, "the operator is still active after scaling it to 0 (" +
                                                          state.reason + ")",
                             kube::resources::deployments.describe(ns, name), "re-run to resume");
    }
    if (progress) progress("waiting for the operator to stop (" + state.reason + ")");
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

base::Status restore_operator(MemberEnv& env) {
  auto [ns, name] = operator_coords(env.operator_deployment);
  kube::Client& kube = *env.kube;
  auto d = kube.get(kube::resources::deployments, ns, name);
  if (!d) return std::move(d).error();
  const std::string ann = std::string(op::kAnnReplicasBeforeBreakGlass);
  std::string before = op::annotation(*d, ann);
  if (before.empty()) return {};
  long long n = 1;
  try {
    n = std::stoll(before);
  } catch (...) {
  }
  json patch = {{"spec", {{"replicas", n}}}, {"metadata", {{"annotations", {{ann, nullptr}}}}}};
  auto r = kube.patch(kube::resources::deployments, ns, name, kube::PatchType::Merge, guarded(*d, patch));
  if (!r) return std::move(r).error();
  return {};
}

}  // namespace admin
