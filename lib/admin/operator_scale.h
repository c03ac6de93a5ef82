// Scaling the operator's Deployment down for break-glass surgery and back up
// afterwards; the replicas it had are kept in an annotation on the
// Deployment, so a run that is killed in between can be undone by the next.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "base/result.h"

namespace admin {

struct MemberEnv;

// --operator NS/NAME (or NAME in the default namespace, or empty for the
// default Deployment) as namespace and name.
std::pair<std::string, std::string> operator_coords(const std::string& coords);

// --stop-operator (docs/break-glass-design.md#operator-active): records the Deployment's replicas in an
// annotation, scales it to 0, waits until its Pods are gone and the Lease
// expired. restore_operator puts the recorded replicas back (also what a
// later run does when it finds the annotation).
base::Status stop_operator(MemberEnv& env, std::chrono::milliseconds timeout,
                          const std::function<void(const std::string&)>& progress);
base::Status restore_operator(MemberEnv& env);

}  // namespace admin
