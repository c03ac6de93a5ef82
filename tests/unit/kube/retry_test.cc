#include "kube/retry.h"

#include <doctest/doctest.h>

#include <set>

using namespace std::chrono_literals;

TEST_CASE("which requests are retried") {
  CHECK(kube::method_is_idempotent("GET"));
  CHECK(kube::method_is_idempotent("PUT"));
  CHECK(kube::method_is_idempotent("DELETE"));
  CHECK_FALSE(kube::method_is_idempotent("POST"));
  CHECK_FALSE(kube::method_is_idempotent("PATCH"));

  kube::AttemptOutcome o;
  o.http_status = 503;
  CHECK(kube::should_retry(true, o));
  CHECK_FALSE(kube::should_retry(false, o));  // a create or a JSON patch may have happened
  o.http_status = 501;
  CHECK_FALSE(kube::should_retry(true, o));
  o.http_status = 409;
  CHECK_FALSE(kube::should_retry(true, o));
  o.http_status = 429;
  CHECK(kube::should_retry(false, o));  // the server did not act
  // An apiserver shutting down: 503 with Retry-After, the request unhandled.
  o.http_status = 503;
  o.retry_after = std::chrono::seconds(1);
  CHECK(kube::should_retry(false, o));
  // The apiserver's timeouts carry Retry-After too, after the write may have
  // happened: a POST is not sent again, an idempotent request is.
  for (int status : {500, 504}) {
    o.http_status = status;
    CHECK_FALSE(kube::should_retry(false, o));
    CHECK(kube::should_retry(true, o));
  }
  o.http_status = 501;
  CHECK_FALSE(kube::should_retry(false, o));
  o.http_status = 409;
  CHECK_FALSE(kube::should_retry(false, o));
  o = {};
  o.never_sent = true;
  CHECK(kube::should_retry(false, o));
  o = {};
  o.transport_failed = true;
  CHECK(kube::should_retry(true, o));
  CHECK_FALSE(kube::should_retry(false, o));
}

TEST_CASE("backoff: jittered exponential, capped; Retry-After honoured and capped") {
  kube::RetryPolicy p;
  std::mt19937_64 rng(1);
  kube::AttemptOutcome o;
  for (int i = 0; i < 50; ++i) {
    auto d1 = kube::backoff_delay(p, 1, o, rng);
    CHECK(d1 >= 100ms);
    CHECK(d1 <= 200ms);
    auto d3 = kube::backoff_delay(p, 3, o, rng);
    CHECK(d3 >= 400ms);
    CHECK(d3 <= 800ms);
    auto d10 = kube::backoff_delay(p, 10, o, rng);
    CHECK(d10 <= 5000ms);
    CHECK(d10 >= 2500ms);
  }
  // Retry-After, plus up to half again so that clients turned away together spread out.
  o.retry_after = 3s;
  std::set<std::chrono::milliseconds> seen;
  for (int i = 0; i < 50; ++i) {
    auto d = kube::backoff_delay(p, 1, o, rng);
    CHECK(d >= 3000ms);
    CHECK(d <= 4500ms);
    seen.insert(d);
  }
  CHECK(seen.size() > 10);
  o.retry_after = 600s;
  auto capped = kube::backoff_delay(p, 1, o, rng);
  CHECK(capped >= 30000ms);
  CHECK(capped <= 45000ms);
  o.retry_after = 0s;
  CHECK(kube::backoff_delay(p, 1, o, rng) == 0ms);
}

TEST_CASE("throttled: 429, and 503 only with Retry-After") {
  kube::AttemptOutcome o;
  o.http_status = 429;
  CHECK(kube::throttled(o));
  o.http_status = 503;
  CHECK_FALSE(kube::throttled(o));
  o.retry_after = 1s;
  CHECK(kube::throttled(o));
  o.http_status = 500;  // a ServerTimeout carries Retry-After after the write may have happened
  CHECK_FALSE(kube::throttled(o));
  o.http_status = 504;
  CHECK_FALSE(kube::throttled(o));
}

TEST_CASE("budget: failures spend attempts, answers that throttle spend time") {
  kube::RetryPolicy p;
  p.max_throttled = 10s;
  std::mt19937_64 rng(7);
  kube::AttemptOutcome failed;
  failed.transport_failed = true;
  kube::AttemptOutcome turned_away;
  turned_away.http_status = 429;
  turned_away.retry_after = 1s;

  kube::RetryBudget b(p);
  // Many 429s in between take no attempt away: still 4 retries after the first failure.
  for (int i = 0; i < 5; ++i) REQUIRE(b.next(turned_away, rng).has_value());
  for (int i = 0; i < 4; ++i) REQUIRE(b.next(failed, rng).has_value());
  CHECK_FALSE(b.next(failed, rng).has_value());

  // The throttled wait is bounded in all: 1 to 1.5 s each, 10 s in all.
  kube::RetryBudget t(p);
  std::chrono::milliseconds waited{0};
  int waits = 0;
  while (auto d = t.next(turned_away, rng)) {
    waited += *d;
    ++waits;
  }
  CHECK(waited <= 10s);
  CHECK(waits >= 6);
  CHECK(waits <= 10);

  // "Retry-After: 0" waits the base backoff, so the budget ends.
  turned_away.retry_after = 0s;
  kube::RetryBudget z(p);
  auto first = z.next(turned_away, rng);
  REQUIRE(first.has_value());
  CHECK(*first == p.base);
  int n = 1;
  while (z.next(turned_away, rng)) ++n;
  CHECK(n == 50);  // 10 s / 200 ms
}
