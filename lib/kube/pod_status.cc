#include "kube/pod_status.h"

namespace kube {

bool pod_ready(const nlohmann::json& pod) {
  const nlohmann::json::json_pointer at("/status/conditions");
  if (!pod.contains(at) || !pod.at(at).is_array()) return false;
  for (const auto& c : pod.at(at)) {
    if (c.is_object() && c.value("type", "") == "Ready") return c.value("status", "") == "True";
  }
  return false;
}

}  // namespace kube
