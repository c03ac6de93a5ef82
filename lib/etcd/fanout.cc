#include "etcd/fanout.h"

#include <thread>

namespace etcd {

void run_concurrently(std::size_t n, const std::function<void(std::size_t)>& fn) {
  if (n == 1) {
    fn(0);
    return;
  }
  // One thread per member: clusters have a handful of members, and each call
  // mostly waits on the network.
  std::vector<std::thread> threads;
  threads.reserve(n);
  for (std::size_t i = 0; i < n; ++i) threads.emplace_back([&fn, i] { fn(i); });
  for (auto& t : threads) t.join();
}

}  // namespace etcd
