// The annotation an operator-mediated `member add` writes on the EtcdCluster
// together with spec.replicas (one merge patch): the absolute count it asked
// for and the EtcdMembers it saw. A re-run after the answer to that patch
// was lost (docs/step-engine.md#relative-effects) finds its own request in
// flight and resumes it, instead of asking for one member more.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace op {

struct ScaleTarget {
  long long replicas = 0;            // spec.replicas the add asked for
  std::vector<std::string> before;   // the EtcdMembers when it was planned
};

// "4:m-a,m-b,m-c" (EtcdMember names are DNS labels: no ':' or ',').
std::string scale_target_value(const ScaleTarget& t);
// None for a value that is not of that form (hand-edited or another tool's).
std::optional<ScaleTarget> parse_scale_target(const std::string& value);
// The annotation of `cluster` (an EtcdCluster), parsed; none when absent or malformed.
std::optional<ScaleTarget> scale_target(const nlohmann::json& cluster);

}  // namespace op
