// Helpers of the server-fault tests (docs/server-faults.md): the pid of an
// etcd member, a db filled past a size so that a stream lasts long enough to
// be cut, and a bounded poll. The program run in the background while a
// server breaks under it (Background) and leader_of are admin_e2e's.
#pragma once

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../admin/admin_e2e.h"
#include "base/sha256.h"
#include "etcd/client.h"

namespace faults_e2e {

using admin_e2e::Background;
using admin_e2e::Clock;
using admin_e2e::json;
using admin_e2e::leader_of;
using admin_e2e::NativeCluster;
using admin_e2e::seconds_since;

inline std::string tmpdir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
  REQUIRE(mkdtemp(tmpl.data()) != nullptr);
  return tmpl;
}

inline bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

inline std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(f)), {});
}

inline std::string sha256_of(const std::string& p) { return base::to_hex(base::sha256(slurp(p))); }

// The pid etcd-cluster recorded for a member of a native fixture.
inline pid_t member_pid(const NativeCluster& c, const std::string& m) {
  std::ifstream f(c.etcd_dir() + "/pids/" + m + ".pid");
  pid_t pid = 0;
  f >> pid;
  REQUIRE_MESSAGE(pid > 0, "no pid of member " << m);
  return pid;
}

// `megabytes` distinct values of 1 MB under /big/.
inline void fill(etcd::Client& cl, int megabytes) {
  std::string value(1000 * 1000, 'v');
  for (int i = 0; i < megabytes; ++i) {
    value[0] = static_cast<char>('a' + i % 26);
    auto r = cl.put("/big/" + std::to_string(i), value);
    REQUIRE_MESSAGE(r.ok(), r.error().one_line());
  }
}

// Polls `ready` every few milliseconds for at most `limit`.
inline bool wait_for(const std::function<bool()>& ready, std::chrono::milliseconds limit,
                     std::chrono::milliseconds every = std::chrono::milliseconds(2)) {
  auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (ready()) return true;
    std::this_thread::sleep_for(every);
  }
  return ready();
}

}  // namespace faults_e2e
