// What the kubelet says of a member's etcd container: how often it has
// restarted, why it last stopped, whether it is crash-looping now. `status`
// and `health` show the count; `check` reports a container that restarts
// without coming back (docs/break-glass-design.md#restarting-members).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace admin {

struct ContainerRestarts {
  bool found = false;         // the Pod reports the etcd container
  bool ready = false;
  long long count = 0;        // restartCount
  std::string waiting;        // state.waiting.reason (CrashLoopBackOff, ...)
  std::string last_reason;    // lastState.terminated.reason (Error, OOMKilled, ...)
  long long last_exit = 0;    // lastState.terminated.exitCode
  std::string last_finished;  // lastState.terminated.finishedAt
};

ContainerRestarts etcd_container_restarts(const nlohmann::json& pod);

// "restarted 3 times (last exit: Error, code 1, at 2026-...; now CrashLoopBackOff)".
std::string describe_restarts(const ContainerRestarts& r);

// Restarted and not Ready: the member is down and the kubelet keeps trying.
bool restarting(const ContainerRestarts& r);

// Its last stop was the kernel's out-of-memory kill.
bool oom_killed(const ContainerRestarts& r);

}  // namespace admin
