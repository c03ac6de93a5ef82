// Helpers of the server-fault tests (docs/server-faults.md): a program run
// in the background while the test breaks a server under it, the pid of an
// etcd member, the cluster's leader, and a db filled past a size so that a
// stream lasts long enough to be cut.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

extern char** environ;

namespace faults_e2e {

using admin_e2e::Clock;
using admin_e2e::json;
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

inline std::string leader_of(const NativeCluster& c) {
  for (int i = 0; i < 50; ++i) {
    auto st = c.tool({"status"}, {"-o", "json"});
    if (st.rc == 0) {
      const json doc = json::parse(st.out);
      for (const auto& m : doc["members"]) {
        if (m["role"] == "leader") return m["name"];
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  FAIL("no leader in status");
  return {};
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

// A program in the background, stdout and stderr to files in `dir`;
// collect() waits for it (a test that ends early kills it).
class Background {
 public:
  Background(std::vector<std::string> args, const std::string& dir,
             const std::vector<std::string>& extra_env = {})
      : out_path_(dir + "/stdout"), err_path_(dir + "/stderr") {
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_store;
    for (char** e = environ; *e != nullptr; ++e) env_store.emplace_back(*e);
    env_store.insert(env_store.end(), extra_env.begin(), extra_env.end());
    std::vector<char*> envp;
    for (auto& e : env_store) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    REQUIRE(posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), envp.data()) == 0);
    posix_spawn_file_actions_destroy(&fa);
    started_ = Clock::now();
  }
  ~Background() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  bool running() {
    if (pid_ <= 0) return false;
    int st = 0;
    pid_t r = ::waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = st;
      pid_ = 0;
      ended_ = Clock::now();
      return false;
    }
    return true;
  }
  // Waits at most `limit`; a program still running then is killed and the test fails.
  e2e::CommandResult collect(std::chrono::seconds limit) {
    auto deadline = Clock::now() + limit;
    while (running() && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (running()) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status_, 0);
      pid_ = 0;
      ended_ = Clock::now();
      FAIL_CHECK("the program did not end within " << limit.count() << " s (killed)");
    }
    e2e::CommandResult r;
    r.rc = WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
    r.out = slurp(out_path_);
    r.err = slurp(err_path_);
    return r;
  }
  double took() const { return std::chrono::duration<double>(ended_ - started_).count(); }

 private:
  pid_t pid_ = 0;
  int status_ = 0;
  std::string out_path_, err_path_;
  Clock::time_point started_, ended_;
};

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
