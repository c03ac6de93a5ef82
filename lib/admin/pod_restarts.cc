#include "admin/pod_restarts.h"

#include <string_view>

#include "base/json_at.h"
#include "operator/names.h"

namespace admin {

namespace {
// The kubelet's reason for a container the kernel killed for its memory limit.
constexpr std::string_view kOomKilled = "OOMKilled";
}  // namespace

ContainerRestarts etcd_container_restarts(const nlohmann::json& pod) {
  ContainerRestarts r;
  for (const auto& cs : base::array_at(pod, "/status/containerStatuses")) {
    if (base::string_at(cs, "/name") != op::kMemberContainer) continue;
    r.found = true;
    r.ready = base::bool_at(cs, "/ready");
    r.count = base::int_at(cs, "/restartCount");
    r.waiting = base::string_at(cs, "/state/waiting/reason");
    r.last_reason = base::string_at(cs, "/lastState/terminated/reason");
    r.last_exit = base::int_at(cs, "/lastState/terminated/exitCode");
    r.last_finished = base::string_at(cs, "/lastState/terminated/finishedAt");
    break;
  }
  return r;
}

std::string describe_restarts(const ContainerRestarts& r) {
  std::string out = "restarted " + std::to_string(r.count) + (r.count == 1 ? " time" : " times");
  std::string detail;
  if (!r.last_reason.empty()) {
    detail = "last exit: " + r.last_reason + ", code " + std::to_string(r.last_exit);
    if (!r.last_finished.empty()) detail += ", at " + r.last_finished;
  }
  if (!r.waiting.empty()) detail += (detail.empty() ? "now " : "; now ") + r.waiting;
  return detail.empty() ? out : out + " (" + detail + ")";
}

bool restarting(const ContainerRestarts& r) { return r.found && !r.ready && r.count > 0; }

bool oom_killed(const ContainerRestarts& r) { return r.last_reason == kOomKilled; }

}  // namespace admin
