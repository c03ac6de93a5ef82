// Whether the etcd operator manages a namespace right now (docs/break-glass-design.md#operator-active):
// active = its leader Lease is held and not expired (plus 5 s of skew), or
// its Deployment has ready replicas; an operator whose WATCH_NAMESPACE
// excludes the namespace does not manage it; unreadable counts as active.
// An inactive operator whose Deployment has spec.replicas 0 is said to be
// scaled down, whatever else holds.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kube {
class Client;
}

namespace admin {

struct OperatorState {
  bool active = true;
  bool unknown = false;  // Lease and Deployment unreadable: counted as active
  std::string reason;    // why, for messages
  // What was read, for messages that must let a user see where the tool
  // looked: "Deployment NS/NAME and Lease NS/LEASE" (empty when judged
  // from given objects).
  std::string looked_at;
};

// Pure: lease/deployment are the objects or null when absent.
OperatorState judge_operator(const nlohmann::json& lease, const nlohmann::json& deployment,
                             const std::string& cluster_ns, std::chrono::system_clock::time_point now);

// `coordinates` is NS/NAME of the operator Deployment (--operator).
OperatorState operator_state(kube::Client& kube, const std::string& coordinates, const std::string& cluster_ns);

}  // namespace admin
