#include "operator/scale_target.h"

#include <charconv>

#include "operator/meta.h"
#include "operator/names.h"

namespace op {

std::string scale_target_value(const ScaleTarget& t) {
  std::string out = std::to_string(t.replicas) + ":";
  for (std::size_t i = 0; i < t.before.size(); ++i) out += (i == 0 ? "" : ",") + t.before[i];
  return out;
}

std::optional<ScaleTarget> parse_scale_target(const std::string& value) {
  const auto colon = value.find(':');
  if (colon == std::string::npos || colon == 0) return std::nullopt;
  ScaleTarget t;
  const char* first = value.data();
  const char* last = value.data() + colon;
  auto [end, ec] = std::from_chars(first, last, t.replicas);
  if (ec != std::errc() || end != last || t.replicas <= 0) return std::nullopt;
  std::string rest = value.substr(colon + 1);
  std::size_t at = 0;
  while (!rest.empty() && at <= rest.size()) {
    const auto comma = rest.find(',', at);
    std::string name = rest.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (name.empty()) return std::nullopt;
    t.before.push_back(std::move(name));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return t;
}

std::optional<ScaleTarget> scale_target(const nlohmann::json& cluster) {
  const std::string v = annotation(cluster, kAnnScaleTarget);
  if (v.empty()) return std::nullopt;
  return parse_scale_target(v);
}

}  // namespace op
