// What a tenant's clients see while the programs work: a
// client writing at a steady rate, as a tenant's kube-apiserver would, runs
// through each operation, then through a quiet stretch of the same length
// on the same cluster. Not a test: bench/availability.sh builds it (meson
// target bench-availability, never built by default) and judges the lines
// it prints. It borrows the e2e fixtures to make the clusters.
//
// The writer is open-loop: put N is due at t0 + N / rate whatever became of
// the puts before it, a pool of workers sends it, and its latency counts
// from when it was due, so a stall shows in the figures instead of slowing
// the writer down. Every key is new (/avail/<run>/<N> = N); afterwards one
// read of the prefix tells keys acknowledged but missing (lost) and keys
// written more than once (version > 1: a put applied twice).
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <unistd.h>

#include "etcd/client.h"
#include "migrate/adopt_checks.h"
#include "migrate/migrate_e2e.h"
#include "operator/operator_cluster.h"
#include "operator/operator_e2e.h"

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kRate = 200;     // puts a second
constexpr int kWorkers = 32;   // puts in flight at most

struct Figures {
  long long sent = 0, ok = 0, failed = 0, lost = 0, duplicated = 0, failed_but_applied = 0;
  double seconds = 0, p50 = 0, p99 = 0, max = 0;  // latencies of the acknowledged puts, ms
  std::vector<std::string> errors;                 // the first few distinct ones
  json to_json() const {
    return {{"sent", sent}, {"ok", ok}, {"failed", failed}, {"lost", lost}, {"duplicated", duplicated},
            {"failedButApplied", failed_but_applied}, {"seconds", seconds}, {"p50", p50}, {"p99", p99},
            {"max", max}, {"errors", errors}};
  }
};

class RateWriter {
 public:
  RateWriter(etcd::Config config, std::string prefix) : prefix_(std::move(prefix)) {
    config.call_timeout = std::chrono::milliseconds(5000);
    config.dial_timeout = std::chrono::milliseconds(2000);
    auto c = etcd::Client::create(std::move(config));
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().one_line()));
    client_ = std::move(*c);
    t0_ = Clock::now();
    for (int i = 0; i < kWorkers; ++i) workers_.emplace_back([this] { work(); });
    ticker_ = std::thread([this] { tick(); });
  }
  // Without a reading of the keys: a failed operation unwinds through here.
  ~RateWriter() { halt(); }

  // Stops, then reads the keys back.
  Figures stop() {
    halt();
    figures_.seconds = std::chrono::duration<double>(Clock::now() - t0_).count();
    figures_.sent = next_;
    figures_.ok = static_cast<long long>(acked_.size());
    figures_.failed = static_cast<long long>(failed_.size());
    std::sort(latencies_.begin(), latencies_.end());
    auto at = [&](double q) {
      if (latencies_.empty()) return 0.0;
      return latencies_[std::min(latencies_.size() - 1, static_cast<std::size_t>(q * latencies_.size()))];
    };
    figures_.p50 = at(0.50);
    figures_.p99 = at(0.99);
    figures_.max = latencies_.empty() ? 0.0 : latencies_.back();
    verify();
    return figures_;
  }

 private:
  void halt() {
    if (halted_) return;
    halted_ = true;
    stop_ = true;
    ticker_.join();
    {
      std::lock_guard<std::mutex> l(mu_);
      draining_ = true;
    }
    cv_.notify_all();
    for (auto& w : workers_) w.join();
  }

  void tick() {
    const auto every = std::chrono::microseconds(1000000 / kRate);
    for (long long n = 0; !stop_; ++n) {
      const auto due = t0_ + n * every;
      std::this_thread::sleep_until(due);
      {
        std::lock_guard<std::mutex> l(mu_);
        queue_.emplace_back(n, due);
        next_ = n + 1;
      }
      cv_.notify_one();
    }
  }

  void work() {
    for (;;) {
      std::pair<long long, Clock::time_point> job;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return !queue_.empty() || draining_; });
        if (queue_.empty()) return;
        job = queue_.front();
        queue_.pop_front();
      }
      auto r = client_->put(prefix_ + std::to_string(job.first), std::to_string(job.first));
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - job.second).count();
      std::lock_guard<std::mutex> l(mu_);
      if (r) {
        acked_.insert(job.first);
        latencies_.push_back(ms);
      } else {
        failed_.insert(job.first);
        const std::string e = r.error().one_line().substr(0, 200);
        if (figures_.errors.size() < 4 &&
            std::find(figures_.errors.begin(), figures_.errors.end(), e) == figures_.errors.end()) {
          figures_.errors.push_back(e);
        }
      }
    }
  }

  void verify() {
    etcd::RangeOptions o;
    o.range_end = prefix_;
    o.range_end.back() = static_cast<char>(o.range_end.back() + 1);
    std::optional<etcd::RangeResult> got;
    std::string why;
    for (int i = 0; i < 10 && !got; ++i) {  // the cluster may still be electing
      auto r = client_->range(prefix_, o);
      if (r) got = std::move(*r);
      else why = r.error().one_line();
      if (!got) std::this_thread::sleep_for(std::chrono::seconds(1));
    }
    REQUIRE_MESSAGE(got.has_value(), "reading the writer's keys back: " << why);
    std::set<long long> present;
    for (const auto& kv : got->kvs) {
      const long long n = std::stoll(kv.key.substr(prefix_.size()));
      present.insert(n);
      if (kv.version > 1) ++figures_.duplicated;
      if (failed_.count(n)) ++figures_.failed_but_applied;
    }
    for (long long n : acked_) {
      if (!present.count(n)) ++figures_.lost;
    }
  }

  std::string prefix_;
  std::unique_ptr<etcd::Client> client_;
  Clock::time_point t0_;
  std::thread ticker_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<long long, Clock::time_point>> queue_;
  std::atomic<bool> stop_{false};
  bool draining_ = false, halted_ = false;
  long long next_ = 0;
  std::set<long long> acked_, failed_;
  std::vector<double> latencies_;
  Figures figures_;
};

int runs = 0;

// The machine's busy and total jiffies (/proc/stat's first line), for how
// many cores were busy across a stretch.
std::pair<double, double> cpu_jiffies() {
  std::ifstream f("/proc/stat");
  std::string cpu;
  f >> cpu;
  double v = 0, busy = 0, total = 0;
  for (int i = 0; i < 8 && f >> v; ++i) {
    total += v;
    if (i != 3 && i != 4) busy += v;  // idle, iowait
  }
  return {busy, total};
}

double cores_busy(std::pair<double, double> a, std::pair<double, double> b) {
  const double total = b.second - a.second;
  return total > 0 ? (b.first - a.first) / total * std::thread::hardware_concurrency() : 0;
}

// The writer through `op`, then through a quiet stretch as long as it was;
// one line "AVAIL <json>" for bench/availability.sh.
void measure(const std::string& what, const std::function<etcd::Config()>& config, const std::function<void()>& op) {
  const std::string run = std::to_string(getpid()) + "-" + std::to_string(++runs);
  Figures during, quiet;
  double took = 0, busy = 0, quiet_busy = 0;
  {
    RateWriter w(config(), "/avail/" + run + "/");
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto t0 = Clock::now();
    const auto c0 = cpu_jiffies();
    op();
    busy = cores_busy(c0, cpu_jiffies());
    took = std::chrono::duration<double>(Clock::now() - t0).count();
    std::this_thread::sleep_for(std::chrono::seconds(1));
    during = w.stop();
  }
  {
    RateWriter w(config(), "/avail/" + run + "-quiet/");
    const auto c0 = cpu_jiffies();
    std::this_thread::sleep_for(std::chrono::duration<double>(took + 2));
    quiet_busy = cores_busy(c0, cpu_jiffies());
    quiet = w.stop();
  }
  json during_doc = during.to_json(), quiet_doc = quiet.to_json();
  during_doc["coresBusy"] = busy;
  quiet_doc["coresBusy"] = quiet_busy;
  std::cout << "AVAIL " << json{{"what", what}, {"took", took}, {"during", during_doc}, {"quiet", quiet_doc}}.dump()
            << std::endl;
}

}  // namespace

TEST_CASE("adoption of a 3-member TLS + auth legacy cluster, then the real operator's take-over") {
  e2e::Namespace ns("bench-avail-adopt");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--auth", "--pdb"});
  e2e::Operator op(f.new_controller(), ns.name(), 0);
  auto config = [&] { return e2e::etcd_config(f); };
  measure("etcd-migrate adopt --apply", config, [&] {
    auto r = e2e::apply(f, {"--skip-backup"});
    REQUIRE_MESSAGE(r.rc == 0, "adopt: " << r.out << r.err);
  });
  measure("the operator's take-over", config, [&] {
    op.scale(1);
    op.wait_leading();
    e2e::wait_until([&] { return e2e::converged(ns.name(), "etcd"); }, std::chrono::seconds(180),
                    "the operator to report the adopted cluster converged");
  });
}

TEST_CASE("membership operations on a 3-member TLS cluster of the real operator, each on the leader") {
  e2e::OperatorCluster c("bench-avail-members", {.tls = true});
  auto config = [&] { return c.etcd_config(); };
  auto tool = [&](const std::vector<std::string>& cmd, const std::vector<std::string>& args) {
    auto r = c.tool(cmd, args);
    REQUIRE_MESSAGE(r.rc == 0, cmd[1] << ": " << r.out << r.err);
  };
  measure("member add --wait", config, [&] {
    tool({"member", "add"}, {"--wait", "--yes", "--timeout", "5m"});
    c.wait_converged("the operator to settle after the add");
  });
  measure("member remove --wait (the leader)", config, [&] {
    tool({"member", "remove", c.leader()}, {"--wait", "--yes", "--timeout", "5m"});
    c.wait_converged("the operator to settle after the remove");
  });
  measure("member replace --break-glass (the leader)", config, [&] {
    tool({"member", "replace", c.leader()}, {"--break-glass", "--stop-operator", "--yes", "--timeout", "5m"});
    c.op().wait_leading(std::chrono::seconds(120));
    c.wait_converged("the operator to settle after the replace");
  });
  measure("member roll (the leader)", config, [&] {
    tool({"member", "roll", c.leader()}, {"--yes", "--timeout", "5m"});
    c.wait_converged("the operator to settle after the roll");
  });
}
