// Which namespaces an operator container manages: its WATCH_NAMESPACE env or
// --watch-namespace flag (comma-separated; empty = every namespace). The flag
// wins, since the operator takes the env only as the flag's default. Both
// "operator active" and the adoption's quiet-operator gate ask this, so that
// an operator watching other namespaces is not counted against this one.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace op {

// Empty = every namespace, also when the value cannot be known from the
// container (an env valueFrom).
std::vector<std::string> watched_namespaces(const nlohmann::json& container);

// Whether `watched` (as returned above) covers `ns`.
bool watches(const std::vector<std::string>& watched, const std::string& ns);

}  // namespace op
