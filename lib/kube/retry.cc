#include "kube/retry.h"

#include <algorithm>
#include <string_view>

namespace kube {

bool method_is_idempotent(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE";
}

bool throttled(const AttemptOutcome& o) {
  // A 503 with Retry-After turned the request away unhandled (an apiserver
  // shutting down answers "apiserver is shutting down", Retry-After: 1):
  // safe for a POST too. Not any 5xx with Retry-After: the apiserver's
  // timeouts (500 ServerTimeout, 504 Timeout) carry one as well, after the
  // write may have happened (docs/server-faults.md).
  return o.http_status == 429 || (o.http_status == 503 && o.retry_after);
}

bool should_retry(bool idempotent, const AttemptOutcome& o) {
  if (o.never_sent || throttled(o)) return true;
  if (!idempotent) return false;
  if (o.transport_failed) return true;
  return o.http_status >= 500 && o.http_status != 501;
}

std::chrono::milliseconds backoff_delay(const RetryPolicy& policy, int attempt,
                                        const AttemptOutcome& outcome, std::mt19937_64& rng) {
  using std::chrono::milliseconds;
  if (outcome.retry_after) {
    auto ra = std::clamp(std::chrono::duration_cast<milliseconds>(*outcome.retry_after), milliseconds(0),
                         policy.max_retry_after);
    std::uniform_int_distribution<int64_t> spread(0, ra.count() / 2);
    return ra + milliseconds(spread(rng));
  }
  int shift = std::clamp(attempt - 1, 0, 20);
  auto d = std::min<int64_t>(policy.cap.count(), policy.base.count() << shift);
  std::uniform_int_distribution<int64_t> dist(d / 2, std::max<int64_t>(d / 2, d));
  return milliseconds(dist(rng));
}

std::optional<std::chrono::milliseconds> RetryBudget::next(const AttemptOutcome& outcome, std::mt19937_64& rng) {
  auto d = backoff_delay(policy_, attempt_, outcome, rng);
  if (throttled(outcome)) {
    d = std::max(d, policy_.base);
    if (throttled_ + d > policy_.max_throttled) return std::nullopt;
    throttled_ += d;
    return d;
  }
  if (attempt_ >= policy_.max_attempts) return std::nullopt;
  ++attempt_;
  return d;
}

}  // namespace kube
