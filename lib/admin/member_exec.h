// Runs a member plan (docs/break-glass-design.md) on the step engine
// (docs/step-engine.md). Each step reads the live state again and answers:
// already done (skipped), did it, or cannot (an error). So a run stopped
// anywhere is finished by running the command again.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_calls.h"
#include "admin/member_plan.h"
#include "admin/operator_scale.h"
#include "admin/session.h"
#include "base/result.h"
#include "base/step_engine.h"
#include "etcd/errors.h"

namespace kube {
class Client;
}

namespace admin {

struct MemberEnv {
  kube::Client* kube = nullptr;
  Session* session = nullptr;
  std::string operator_deployment;  // NS/NAME (--operator; default the chart's)
  std::string rendered_by;          // kubectl-etcd/<version>
};

// The live state of the session's cluster: objects, a linearizable
// MemberList, which members answer Status, the leader, the operator; with
// `nodes`, also whether the Nodes of its Pods are Ready.
base::Result<LiveState> read_state(MemberEnv& env, bool nodes = false);

struct StepResult;

struct ExecOptions {
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};  // waits (Ready, promotion)
  std::function<void(const std::string&)> progress;           // transient lines (stderr)
  // Lines that stay: where a wait stands and why, once per change (unset: progress).
  std::function<void(const std::string&)> note;
  std::function<void(const std::string& step)> after_step;    // a step finished (test seam)
  // A step finished with this outcome (the one its summary line reports).
  std::function<void(const StepResult& result)> step_done;
};

struct StepResult {
  MemberStep step;
  std::string outcome;  // done, skipped
  std::string detail;
};

// The word a summary line and the JSON document use for a step's answer:
// "done" when it wrote, "skipped" when it found the work done.
const char* outcome_word(const base::StepAnswer& answer);

struct ExecReport {
  std::string member;   // the target, or the member added
  std::uint64_t id = 0;
  std::vector<StepResult> steps;
};

namespace detail {
// One pause of retry_while_unhealthy: the Timeout error when sleeping `delay`
// would pass `end`; else reports progress, sleeps and doubles `delay` (to 5 s).
base::Status unhealthy_pause(std::chrono::steady_clock::time_point end, std::chrono::milliseconds& delay,
                            std::chrono::milliseconds timeout, const std::function<void(const std::string&)>& progress);
}  // namespace detail

// Makes the etcd membership call `call` (returning a base::Result) again, with
// backoff (500 ms doubling to 5 s) up to `timeout`, while it fails with
// "unhealthy cluster": etcd's strict reconfiguration check refusing
// membership changes until every member has been connected a while (right
// after another change). Returns the call's last result, or a Timeout error.
template <class Call>
auto retry_while_unhealthy(Call&& call, std::chrono::milliseconds timeout,
                           const std::function<void(const std::string&)>& progress) -> decltype(call()) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  auto delay = std::chrono::milliseconds(500);
  for (;;) {
    auto r = call();
    if (r || r.error().reason != etcd::reason::kUnhealthyCluster) return r;
    if (auto paused = detail::unhealthy_pause(end, delay, timeout, progress); !paused) return std::move(paused).error();
  }
}

// Drops the member finalizer of EtcdMember `member`, the release step of a remove:
// skipped when the object is gone or holds no finalizer; refused (an error)
// while a fresh linearizable MemberList still lists `id`, the name or
// `peer_url` (never before: docs/break-glass-design.md); the merge patch is guarded by the resourceVersion read.
base::Result<base::StepAnswer> release_finalizer(MemberEnv& env, const std::string& member, std::uint64_t id,
                                       const std::string& peer_url);
base::Result<base::StepAnswer> release_finalizer(KubeCalls& kube, EtcdCalls& etcd, const std::string& ns,
                                                 const std::string& member, std::uint64_t id,
                                                 const std::string& peer_url);

base::Result<ExecReport> execute(MemberEnv& env, const MemberPlan& plan, const MemberRequest& request,
                                const ExecOptions& options);
// The same over the calls given (docs/step-engine.md#the-seam): the steps
// make every Kubernetes and etcd call through `kube` and `etcd`, except the
// operator-mediated waits (wait-added, wait-removed, wait-filled), which read
// the whole live state through `env` (read_state).
base::Result<ExecReport> execute(MemberEnv& env, KubeCalls& kube, EtcdCalls& etcd, const MemberPlan& plan,
                                const MemberRequest& request, const ExecOptions& options);

nlohmann::ordered_json exec_document(const MemberPlan& plan, const ExecReport& report);

}  // namespace admin
