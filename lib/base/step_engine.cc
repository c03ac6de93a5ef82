#include "base/step_engine.h"

namespace base {

const char* run_end_name(RunEnd end) {
  switch (end) {
    case RunEnd::Finished: return "finished";
    case RunEnd::Failed: return "failed";
    case RunEnd::Stopped: return "stopped";
  }
  return "failed";
}

RunCore run_core(std::size_t n, const std::function<Result<StepAnswer>(std::size_t)>& step, const StepPolicy& policy,
                 const std::function<void(std::size_t, const Error&)>& on_retry,
                 const std::function<void(std::size_t, const StepAnswer&)>& finished) {
  RunCore out;
  auto stopped = [&] { return policy.stop && policy.stop(); };
  // The boundary before the first step counts too: a stop that came while
  // the plan was made writes nothing.
  if (stopped()) {
    out.end = RunEnd::Stopped;
    return out;
  }
  for (std::size_t i = 0; i < n; ++i) {
    out.at = i;
    Result<StepAnswer> answer = step(i);
    for (int attempt = 1; !answer && attempt < policy.attempts && policy.retry_if && policy.retry_if(answer.error());
         ++attempt) {
      if (on_retry) on_retry(i, answer.error());
      answer = step(i);
    }
    if (!answer) {
      // A step that saw the stop flag mid-way answers Interrupted: that is a
      // stop, not a failure; the re-run finishes the step.
      out.end = answer.error().kind == ErrorKind::Interrupted ? RunEnd::Stopped : RunEnd::Failed;
      out.error = std::move(answer).error();
      return out;
    }
    if (finished) finished(i, *answer);
    if (stopped()) {
      out.end = RunEnd::Stopped;
      out.at = i + 1;
      return out;
    }
  }
  out.at = n;
  return out;
}

}  // namespace base
