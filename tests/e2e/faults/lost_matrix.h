// The lost-answer matrices (docs/server-faults.md#lost-answers): for every N
// in 1..W a fresh cluster, the answer to write N lost, then the same command
// again. The cases are independent (each its own namespace, fixture and
// proxy), so they run a few at a time: the matrices are the longest tests of
// the suite, and a case spends most of its time waiting on servers.
#pragma once

#include <cstdlib>
#include <future>
#include <string>
#include <vector>

#include "apiserver_e2e.h"

namespace faults_e2e {

// Runs case_n(n) for n in 1..writes, at most `parallel` at a time. An
// exception of a case (a failed REQUIRE) is rethrown here, in the test's
// thread, once every case of its batch is over.
// LOST_N=3,5 in the environment runs only those cases (to look at one).
template <typename Case>
void lost_matrix(int writes, std::size_t parallel, Case case_n) {
  std::vector<int> ns;
  const char* only = std::getenv("LOST_N");
  for (int n = 1; n <= writes; ++n) {
    if (only == nullptr || ("," + std::string(only) + ",").find("," + std::to_string(n) + ",") != std::string::npos) {
      ns.push_back(n);
    }
  }
  for (std::size_t first = 0; first < ns.size(); first += parallel) {
    std::vector<std::future<void>> batch;
    for (std::size_t i = first; i < first + parallel && i < ns.size(); ++i) {
      const int n = ns[i];
      batch.push_back(std::async(std::launch::async, [&case_n, n] { case_n(n); }));
    }
    for (auto& f : batch) f.wait();
    for (auto& f : batch) f.get();
  }
}

// The proxy's "lost STATUS METHOD PATH" line, empty when no answer was lost.
inline std::string lost_line(const FaultProxy& proxy) {
  std::istringstream log(slurp(proxy.log()));
  std::string lost;
  for (std::string line; std::getline(log, line);) {
    if (line.rfind("lost ", 0) == 0) lost = line;
  }
  return lost;
}

}  // namespace faults_e2e
