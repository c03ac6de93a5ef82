// What a Pod's status says, as the kubelet writes it.
#pragma once

#include <nlohmann/json.hpp>

namespace kube {

// The Pod's Ready condition is True (false when it has no such condition).
bool pod_ready(const nlohmann::json& pod);

}  // namespace kube
