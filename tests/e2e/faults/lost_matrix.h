// The lost-answer matrices (docs/server-faults.md#lost-answers): for every N
// in 1..W a fresh cluster, the answer to write N lost, then the same command
// again. The cases are independent (each its own namespace, fixture and
// proxy), so they run a few at a time: the matrices are the longest tests of
// the suite, and a case spends most of its time waiting on servers.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "apiserver_e2e.h"

namespace faults_e2e {

// The kind of a write: its method and path with the namespace, the
// object's name and the query left out ("PUT etcdmembers/status").
inline std::string write_kind(const std::string& method, std::string path) {
  path = path.substr(0, path.find('?'));
  std::vector<std::string> seg;
  std::istringstream in(path);
  for (std::string s; std::getline(in, s, '/');) {
    if (!s.empty()) seg.push_back(s);
  }
  std::string kind = method;
  auto ns = std::find(seg.begin(), seg.end(), "namespaces");
  auto plural = ns == seg.end() ? seg.end() : ns + 2;
  if (plural >= seg.end()) return kind + " " + path;
  kind += " " + *plural;
  if (plural + 2 < seg.end()) kind += "/" + *(plural + 2);  // a subresource
  return kind;
}

// The uninterrupted run's writes by number, from its proxy's log.
inline std::vector<std::string> write_kinds(const FaultProxy& proxy) {
  std::vector<std::string> kinds;
  std::istringstream log(slurp(proxy.log()));
  for (std::string line; std::getline(log, line);) {
    std::istringstream l(line);
    std::string word, method, path;
    int n = 0;
    if (l >> word >> n >> method >> path && word == "write") kinds.push_back(write_kind(method, path));
  }
  return kinds;
}

// The cases to run: each write whose kind no earlier write had. A write of
// a kind seen before is the same request to the same resource again: the
// same step in its loop over the members (adoption's second EtcdMember
// create), or a later step's merge patch of the same status, lost and
// handled as the first one (the client resends it, reads the 409 and the
// step reads again); and each case costs a fresh cluster
// (docs/server-faults.md#lost-answers). Every N with LOST_ALL=1; LOST_N=3,5
// runs only those (to look at one).
inline std::vector<int> lost_cases(const std::vector<std::string>& kinds) {
  std::vector<int> ns;
  const char* only = std::getenv("LOST_N");
  const bool all = std::getenv("LOST_ALL") != nullptr;
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    const int n = static_cast<int>(i) + 1;
    if (only != nullptr) {
      if (("," + std::string(only) + ",").find("," + std::to_string(n) + ",") != std::string::npos) ns.push_back(n);
    } else if (all || std::find(kinds.begin(), kinds.begin() + static_cast<long>(i), kinds[i]) == kinds.begin() + static_cast<long>(i)) {
      ns.push_back(n);
    }
  }
  return ns;
}

// Runs case_n(n) for each n of `ns`, at most `parallel` at a time. An
// exception of a case (a failed REQUIRE) is rethrown here, in the test's
// thread, once every case of its batch is over.
template <typename Case>
void lost_matrix(const std::vector<int>& ns, std::size_t parallel, Case case_n) {
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
