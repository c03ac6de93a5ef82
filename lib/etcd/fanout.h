// Runs one per-member call on every member at once under one deadline and
// returns a result or an error per member, in the order given. Each call gets
// the shared deadline, so a stopped or paused member costs the deadline and
// no more (docs/rules.md#health-budget).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"

namespace etcd {

using Deadline = std::chrono::system_clock::time_point;

template <class T>
struct MemberResult {
  std::string endpoint;
  base::Result<T> result;
};

// Calls fn(0..n-1) on n threads and waits for all of them.
void run_concurrently(std::size_t n, const std::function<void(std::size_t)>& fn);

template <class T, class F>
std::vector<MemberResult<T>> fan_out(const std::vector<std::string>& endpoints, Deadline deadline, F&& fn) {
  std::vector<std::optional<base::Result<T>>> slots(endpoints.size());
  run_concurrently(endpoints.size(), [&](std::size_t i) { slots[i].emplace(fn(endpoints[i], deadline)); });
  std::vector<MemberResult<T>> out;
  out.reserve(endpoints.size());
  for (std::size_t i = 0; i < endpoints.size(); ++i) out.push_back({endpoints[i], std::move(*slots[i])});
  return out;
}

}  // namespace etcd
