// What an object's status.conditions say, as its controller (the kubelet for
// Pods and Nodes, the Job controller, ...) writes them.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace kube {

// The status of the first condition of that type ("True", "False",
// "Unknown"); empty when there is none or the list is not a list.
std::string condition_status(const nlohmann::json& object, std::string_view type);
// condition_status(...) == "True": a Pod's or Node's "Ready", a Job's "Complete".
bool condition_true(const nlohmann::json& object, std::string_view type);

}  // namespace kube
