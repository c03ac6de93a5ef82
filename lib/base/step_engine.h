// The one step engine every mutating flow runs on (docs/step-engine.md):
// adoption's per-cluster pipeline, member surgery (add, promote, remove,
// replace, roll) and unwedge's fixes. A flow is a list of typed step ids
// (an enum of its own); the engine asks each step in order, records what it
// answered, stops at the first that cannot, stops cleanly between steps when
// asked to, and re-asks a step whose error the flow calls transient.
//
// Resumption is the engine's contract, not each flow's: a run that ended
// anywhere (a kill, a signal, a failure) is resumed by running the same plan
// again from its first step. That holds because a step never trusts the
// records of an earlier run; it reads live state and answers "already done",
// "did it" or "cannot" (an error). Nothing here throws.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/result.h"

namespace base {

// What a step answered when it could act.
struct StepAnswer {
  enum class Kind {
    AlreadyDone,  // live state already showed the work done (or nothing to do)
    Did,          // it wrote
    Quiet,        // a check, or not part of this run: neither recorded nor reported
  };
  Kind kind = Kind::AlreadyDone;
  std::string detail;

  static StepAnswer already(std::string detail = {}) { return {Kind::AlreadyDone, std::move(detail)}; }
  static StepAnswer did(std::string detail = {}) { return {Kind::Did, std::move(detail)}; }
  static StepAnswer did_if(bool acted, std::string detail = {}) {
    return {acted ? Kind::Did : Kind::AlreadyDone, std::move(detail)};
  }
  static StepAnswer quiet() { return {Kind::Quiet, {}}; }
  bool acted() const { return kind == Kind::Did; }
};

// How a run ended.
enum class RunEnd {
  Finished,  // every step answered
  Failed,    // a step could not (its error is kept)
  Stopped,   // stopped between two steps, or a step answered ErrorKind::Interrupted
};
const char* run_end_name(RunEnd end);

// How the engine asks the steps; every member may stay empty.
struct StepPolicy {
  // Asked before the first step and after every step: true stops the run there.
  std::function<bool()> stop;
  // A step whose error this accepts is asked again, up to `attempts` times
  // in all (the step reads live state again, so asking again is safe).
  std::function<bool(const Error&)> retry_if;
  int attempts = 1;
};

// The untyped core the template below wraps: steps are 0..n-1.
struct RunCore {
  RunEnd end = RunEnd::Finished;
  std::size_t at = 0;          // Failed / Stopped: as StepRun::at below (n: after the last)
  std::optional<Error> error;  // Failed, or Stopped by a step's Interrupted answer
};
RunCore run_core(std::size_t n, const std::function<Result<StepAnswer>(std::size_t)>& step, const StepPolicy& policy,
                 const std::function<void(std::size_t, const Error&)>& on_retry,
                 const std::function<void(std::size_t, const StepAnswer&)>& finished);

template <class Id>
struct StepRecord {
  Id id;
  StepAnswer answer;
};

template <class Id>
struct StepRun {
  RunEnd end = RunEnd::Finished;
  // Failed: the step that could not; Stopped: the step that answered
  // Interrupted, or the first one not asked (none after the last step).
  std::optional<Id> at;
  std::optional<Error> error;             // Failed, or a step's Interrupted answer
  std::vector<StepRecord<Id>> records;    // in order; Quiet answers are not recorded
  bool finished() const { return end == RunEnd::Finished; }
};

// Runs `plan` (typed step ids, in order) through `step`. `finished` is
// called once per recorded step, right after it answered and before the
// stop check; `on_retry` before a step is asked again.
template <class Id>
StepRun<Id> run_steps(const std::vector<Id>& plan, const std::function<Result<StepAnswer>(Id)>& step,
                      const StepPolicy& policy = {},
                      const std::function<void(const StepRecord<Id>&)>& finished = {},
                      const std::function<void(Id, const Error&)>& on_retry = {}) {
  StepRun<Id> run;
  RunCore core = run_core(
      plan.size(), [&](std::size_t i) { return step(plan[i]); }, policy,
      [&](std::size_t i, const Error& e) {
        if (on_retry) on_retry(plan[i], e);
      },
      [&](std::size_t i, const StepAnswer& a) {
        if (a.kind == StepAnswer::Kind::Quiet) return;
        run.records.push_back({plan[i], a});
        if (finished) finished(run.records.back());
      });
  run.end = core.end;
  run.error = std::move(core.error);
  if (core.at < plan.size() && core.end != RunEnd::Finished) run.at = plan[core.at];
  return run;
}

}  // namespace base
