// When a failed request may be sent again, and after how long: jittered
// exponential backoff, Retry-After honoured. A request that the server may
// have executed is resent only when it is idempotent.
#pragma once

#include <chrono>
#include <optional>
#include <random>

namespace kube {

struct RetryPolicy {
  int max_attempts = 5;  // including the first; answers that throttle() do not count
  std::chrono::milliseconds base{200};
  std::chrono::milliseconds cap{5000};
  std::chrono::milliseconds max_retry_after{30000};
  // How long one request waits in all on answers that throttle before it
  // fails: priority and fairness turns a busy client away again and again
  // (docs/server-faults.md), which slows a run but must not fail it.
  std::chrono::milliseconds max_throttled{120000};
};

// How one attempt ended.
struct AttemptOutcome {
  int http_status = 0;          // 0: no HTTP answer
  bool never_sent = false;      // connect/resolve/TLS handshake failed: the server saw nothing
  bool transport_failed = false;  // the connection broke or timed out after sending
  std::optional<std::chrono::seconds> retry_after;
};

// GET, HEAD, PUT and DELETE are idempotent; POST never is; PATCH as the
// caller says (see PatchOptions::idempotent).
bool method_is_idempotent(std::string_view method);

// 429, a 503 with Retry-After and "never sent" are safe for every request
// (the server did not act); other 5xx (but 501) and broken connections only
// for idempotent ones.
bool should_retry(bool idempotent, const AttemptOutcome& outcome);

// 429, or a 503 with Retry-After: the server turned the request away
// without acting and asked to be asked again later.
bool throttled(const AttemptOutcome& outcome);

// Delay before attempt `attempt` + 1 (attempt counts from 1): Retry-After if
// given (capped) plus up to half of it again at random, so that clients
// turned away together do not all come back together; else a random value
// in [d/2, d], d = min(cap, base * 2^(attempt-1)).
std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt,
                                        const AttemptOutcome& outcome, std::mt19937_64& rng);

// What one request has left: attempts for failures, time for answers that
// throttle (those spend no attempt; each of their waits is at least the
// base backoff, so that "Retry-After: 0" cannot spin).
class RetryBudget {
 public:
  explicit RetryBudget(const RetryPolicy& policy) : policy_(policy) {}
  // After a failed attempt that should_retry() allows: how long to wait
  // before the next, or nullopt when the budget is spent.
  std::optional<std::chrono::milliseconds> next(const AttemptOutcome& outcome, std::mt19937_64& rng);

 private:
  const RetryPolicy& policy_;
  int attempt_ = 1;
  std::chrono::milliseconds throttled_{0};
};

}  // namespace kube
