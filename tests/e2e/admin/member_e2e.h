// Helpers of the member surgery e2e tests: a native cluster whose new pods
// are run by the pod runner (it stands in for the kubelet), kubectl-etcd
// member commands in break-glass mode, and the invariants of
// docs/break-glass-design.md as `kubectl-etcd check` reports them.
#pragma once

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "admin_e2e.h"

namespace member_e2e {

using namespace admin_e2e;

inline FixtureOptions runner_fixture(const std::string& version, int members) {
  FixtureOptions o;
  o.version = version;
  o.members = members;
  o.extra = {"--pod-runner"};
  return o;
}

// kubectl-etcd member <verb> ... in break-glass mode alongside the fixture's
// (simulated, active) operator, with optional extra environment.
inline e2e::CommandResult member(const NativeCluster& c, std::vector<std::string> args,
                                 const std::map<std::string, std::string>& env = {}, bool break_glass = true) {
  std::vector<std::string> argv{NativeCluster::binary(), "member"};
  argv.insert(argv.end(), args.begin(), args.end());
  for (const auto& a : {std::string("-c"), c.name(), std::string("-n"), c.ns(), std::string("--connect"),
                        std::string("direct"), std::string("--operator"), c.ns() + "/etcd-operator",
                        std::string("--timeout"), std::string("90s")}) {
    argv.push_back(a);
  }
  if (break_glass) argv.insert(argv.end(), {"--break-glass", "--skip-operator-check", "--yes"});
  return e2e::run(argv, env);
}

inline std::vector<std::string> finding_codes(const NativeCluster& c) {
  auto r = c.tool({"check"}, {"-o", "json"});
  INFO("check: " << r.out << r.err);
  REQUIRE((r.rc == 0 || r.rc == 1));
  std::vector<std::string> out;
  const json doc = json::parse(r.out);
  for (const auto& f : doc["findings"]) out.push_back(f["code"]);
  return out;
}

inline bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// I1-I3: every etcd member has its EtcdMember and back (pending and
// registered learners excepted), at most one learner and it is mapped, no
// stored ID etcd does not know.
inline void check_i1_i3(const NativeCluster& c, const std::string& where) {
  auto codes = finding_codes(c);
  INFO(where << ": findings " << json(codes).dump());
  for (const char* bad : {"STRAY_VOTER", "ORPHAN_LEARNER", "GHOST_MEMBER", "MULTIPLE_LEARNERS", "MEMBERID_MISMATCH"}) {
    CHECK_FALSE(has(codes, bad));
  }
}

// Finished: nothing but the hand-rendered Pods break-glass add leaves for `member roll`.
// A member added a moment ago may not answer a client's Status within the
// call timeout yet (seen once under the sanitizers right after replace, as
// UNREACHABLE_MEMBER): that finding gets 20 s to clear; any other is final.
inline void check_clean(const NativeCluster& c, const std::string& where) {
  auto codes = finding_codes(c);
  for (int i = 0; i < 10 && has(codes, "UNREACHABLE_MEMBER"); ++i) {
    MESSAGE(where << ": UNREACHABLE_MEMBER, checking again in 2 s");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    codes = finding_codes(c);
  }
  INFO(where << ": findings " << json(codes).dump());
  for (const auto& code : codes) CHECK(code == "HAND_RENDERED_POD");
}

// Voters and learners as etcd lists them.
inline json etcd_members(const NativeCluster& c) { return json::parse(c.ctl({"member", "list", "-w", "json"}))["members"]; }

inline int voters(const NativeCluster& c) {
  int n = 0;
  for (const auto& m : etcd_members(c)) n += m.value("isLearner", false) ? 0 : 1;
  return n;
}

inline std::string hex_id(const json& m) { return hex(m["ID"].get<std::uint64_t>()); }

// A writer putting keys through one member that stays up the whole test.
// Each failed put is kept (the first few) with the phase the test was in
// when the put began (a timeout ends 7 s later, often in the next phase)
// and the times since the start, so a failure says which step cost a write.
//
// A leadership handover drops the proposals that reach the old leader while
// it lasts (docs/break-glass-design.md): etcd answers "raft proposal
// dropped", or a put forwarded by a follower times out ("request timed
// out", "possibly due to previous leader failure" added when the member
// that took it is the new leader). That is the price of moving leadership,
// which remove pays instead of an election. So the test moves leadership
// itself only with the writer paused (quiet()), and a phase in which the
// tool moves it is declared a handover: a put begun there that gets such an
// answer is counted apart (handovers()); any other failed put is an error.
class Writer {
 public:
  Writer(const NativeCluster& c, std::string endpoint)
      : c_(c), endpoint_(std::move(endpoint)), started_(std::chrono::steady_clock::now()) {
    thread_ = std::thread([this] {
      int i = 0;
      for (;;) {
        {
          std::unique_lock<std::mutex> l(run_mu_);
          run_cv_.wait(l, [this] { return stop_ || !paused_; });
          if (stop_) return;
          in_flight_ = true;
        }
        const Began began = begin();
        auto r = c_.ctl_result({"--endpoints", endpoint_, "put", "writer/" + std::to_string(i++), "v"});
        ++puts_;
        if (r.rc != 0) record(began, r.err);
        {
          std::lock_guard<std::mutex> l(run_mu_);
          in_flight_ = false;
        }
        run_cv_.notify_all();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  ~Writer() { finish(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  // What the test does from now on, named in the errors. `handover`: the
  // tool may move leadership in it.
  void phase(std::string name, bool handover = false) {
    std::lock_guard<std::mutex> l(mu_);
    phase_ = std::move(name);
    handover_ = handover;
  }
  // Runs f with no put in flight and none started until it returns: for the
  // test's own leadership moves, which are set-up, not the surgery.
  template <class F>
  auto quiet(F&& f) {
    {
      std::unique_lock<std::mutex> l(run_mu_);
      paused_ = true;
      run_cv_.wait(l, [this] { return !in_flight_; });
    }
    struct Resume {
      Writer* w;
      ~Resume() {
        {
          std::lock_guard<std::mutex> l(w->run_mu_);
          w->paused_ = false;
        }
        w->run_cv_.notify_all();
      }
    } resume{this};
    return f();
  }
  void finish() {
    {
      std::lock_guard<std::mutex> l(run_mu_);
      stop_ = true;
    }
    run_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  int puts() const { return puts_; }
  int errors() const { return errors_; }
  int handovers() const { return handovers_; }
  // The kept errors and handover answers, one a line.
  std::string error_log() const {
    std::lock_guard<std::mutex> l(mu_);
    return log_;
  }

 private:
  // The phase a put began in, and when.
  struct Began {
    std::string phase;
    bool handover = false;
    double at = 0;
  };
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  }
  Began begin() const {
    std::lock_guard<std::mutex> l(mu_);
    return {phase_, handover_, seconds()};
  }
  static bool handover_answer(const std::string& line) {
    return line.find("raft proposal dropped") != std::string::npos ||
           line.find("etcdserver: request timed out") != std::string::npos;
  }
  void record(const Began& began, const std::string& err) {
    const double t = seconds();
    // etcdctl's last line is its "Error: ..." summary.
    std::string last = err;
    while (!last.empty() && last.back() == '\n') last.pop_back();
    last = last.substr(last.rfind('\n') == std::string::npos ? 0 : last.rfind('\n') + 1);
    const bool handover = began.handover && handover_answer(last);
    std::lock_guard<std::mutex> l(mu_);
    if (++(handover ? handovers_ : errors_) > 5) return;
    log_ += std::string(handover ? "handover" : "error") + ": a put begun during " + began.phase + ", " +
            std::to_string(static_cast<int>(began.at)) + " s in, failed " + std::to_string(static_cast<int>(t)) +
            " s in: " + last + "\n";
  }

  const NativeCluster& c_;
  std::string endpoint_;
  std::chrono::steady_clock::time_point started_;
  std::thread thread_;
  std::mutex run_mu_;
  std::condition_variable run_cv_;
  bool stop_ = false, paused_ = false, in_flight_ = false;
  std::atomic<int> puts_{0}, errors_{0}, handovers_{0};
  mutable std::mutex mu_;
  std::string phase_ = "set-up";
  bool handover_ = false;
  std::string log_;
};

inline std::string endpoint_of(const NativeCluster& c, const std::string& member) {
  for (const auto& m : c.info()["members"]) {
    if (m["name"] == member) return "https://" + m["ip"].get<std::string>() + ":2379";
  }
  FAIL("no member " << member);
  return {};
}

// The pid of the etcd the pod runner started for a pod.
inline int runner_pid(const NativeCluster& c, const std::string& pod) {
  std::ifstream f(e2e::var("TESTENV_DIR") + "/fixtures/native." + c.ns() + "." + c.name() + "/pod-runner/pods/" + pod +
                  "/etcd.pid");
  int pid = 0;
  f >> pid;
  REQUIRE(pid > 0);
  return pid;
}

// The pod runner's own pid (tests pause it: a kubelet that stopped reporting).
inline int runner_process(const NativeCluster& c) {
  std::ifstream f(e2e::var("TESTENV_DIR") + "/fixtures/native." + c.ns() + "." + c.name() +
                  "/pod-runner/pids/runner.pid");
  int pid = 0;
  f >> pid;
  REQUIRE(pid > 0);
  return pid;
}

}  // namespace member_e2e
