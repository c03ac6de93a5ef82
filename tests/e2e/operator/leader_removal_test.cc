// Operator-mediated removal of the leader against the real operator
// (docs/operator-contract.md, "The operator removes a leader without handing
// leadership over"): `member remove <leader> --wait` moves leadership to a
// healthy voter right before it deletes the EtcdMember, so a writer putting
// keys through a member that stays loses no put (at most the one a handover
// itself may drop), and no member that stays starts an election other than
// the handover's. Without the move-leader
// step the operator's MemberRemove of the leader left the others without a
// leader for an election timeout: a put failed with "etcdserver: request
// timed out" and the members logged an election of their own.
//
// Beside it, lib/etcd's client puts keys through every member, the leader
// first, as a tenant's apiserver does: a put sent to the member being
// removed may fail, but none may apply twice (the client sends a key write
// to another member only when etcd refused it before proposing it) and none
// that was answered may be missing.
#include <doctest/doctest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "etcd/client.h"
#include "operator_cluster.h"

using json = nlohmann::json;

namespace {

// Puts keys through one member until stopped; keeps the failed puts, and
// counts apart those answered as a handover answers a put it dropped.
class Writer {
 public:
  Writer(const e2e::OperatorCluster& c, std::string member) : c_(c), member_(std::move(member)) {
    thread_ = std::thread([this] {
      for (int i = 0; !stop_; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = c_.etcdctl_at(member_, {"put", "leader-removal/" + std::to_string(i), "v"});
        ++puts_;
        if (r.rc != 0) {
          std::lock_guard<std::mutex> l(mu_);
          ++failed_;
          if (r.err.find("raft proposal dropped") != std::string::npos ||
              r.err.find("etcdserver: request timed out") != std::string::npos) {
            ++handover_;
          }
          log_ += "put " + std::to_string(i) + " failed after " + std::to_string(e2e::seconds_since(t0)) + " s: " + r.err;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
  }
  ~Writer() { stop(); }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  int puts() const { return puts_; }
  int failed() const { return failed_; }
  int handover() const { return handover_; }
  std::string log() const {
    std::lock_guard<std::mutex> l(mu_);
    return log_;
  }

 private:
  const e2e::OperatorCluster& c_;
  std::string member_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> puts_{0}, failed_{0}, handover_{0};
  mutable std::mutex mu_;
  std::string log_;
};

// Puts lib-writer/<n> once each through lib/etcd's client, every 10 ms.
class LibWriter {
 public:
  explicit LibWriter(etcd::Config config) {
    auto c = etcd::Client::create(std::move(config));
    REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().one_line()));
    client_ = std::move(*c);
    thread_ = std::thread([this] {
      for (long long n = 0; !stop_; ++n) {
        auto r = client_->put(kPrefix + std::to_string(n), "v");
        std::lock_guard<std::mutex> l(mu_);
        if (r) {
          acked_.insert(n);
        } else {
          ++failed_;
          if (errors_.size() < 600) errors_ += kPrefix + std::to_string(n) + ": " + r.error().one_line() + "\n";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  ~LibWriter() { stop(); }
  LibWriter(const LibWriter&) = delete;
  LibWriter& operator=(const LibWriter&) = delete;
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  // After stop(): the keys etcd holds, answered puts missing, keys applied twice.
  struct Outcome {
    std::size_t acked = 0, held = 0, missing = 0, twice = 0;
    int failed = 0;
    std::string errors;
  };
  Outcome outcome() const {
    Outcome o;
    o.acked = acked_.size();
    o.failed = failed_;
    o.errors = errors_;
    etcd::RangeOptions opts;
    opts.range_end = "lib-writer0";  // the prefix "lib-writer/" with its last byte + 1
    auto r = client_->range(kPrefix, opts);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().one_line()));
    std::set<long long> held;
    for (const auto& kv : r->kvs) {
      held.insert(std::stoll(kv.key.substr(kPrefix.size())));
      if (kv.version > 1) ++o.twice;
    }
    o.held = held.size();
    for (long long n : acked_) o.missing += held.count(n) == 0 ? 1 : 0;
    return o;
  }

 private:
  inline static const std::string kPrefix = "lib-writer/";
  std::unique_ptr<etcd::Client> client_;
  std::thread thread_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::set<long long> acked_;
  int failed_ = 0;
  std::string errors_;
};

std::string read_from(const std::string& path, std::size_t offset) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  const std::string all = s.str();
  return offset < all.size() ? all.substr(offset) : std::string();
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("operator-mediated remove of the leader hands leadership over first: no failed put, no election") {
  e2e::OperatorCluster c("e2e-opleader", {});
  const std::size_t log_start = c.log_size();
  const std::string leader = c.leader();
  std::string through;  // a member that stays
  std::map<std::string, std::size_t> offsets;
  for (const auto& m : e2e::object_names(c.members())) {
    if (m == leader) continue;
    if (through.empty()) through = m;
    offsets[m] = read_from(c.etcd_log_path(m), 0).size();
  }
  REQUIRE(offsets.size() == 2);

  auto dry = c.tool({"member", "remove", leader}, {"--wait", "--dry-run"});
  INFO("dry run: " << dry.out << dry.err);
  CHECK(dry.out.find("1. move-leader: move leadership from EtcdMember " + leader + " (it leads)") != std::string::npos);
  CHECK(dry.out.find("2. delete-member:") != std::string::npos);

  Writer writer(c, through);
  LibWriter lib_writer(c.etcd_config(leader));
  e2e::wait_until([&] { return writer.puts() >= 10; }, std::chrono::seconds(60), "the writer's first puts");
  auto r = c.tool({"member", "remove", leader}, {"--wait", "--yes", "--timeout", "4m", "-o", "json"});
  // Puts go on a little after the command: a put forwarded to a member that
  // lost leadership fails only after etcd's request timeout (7 s).
  std::this_thread::sleep_for(std::chrono::seconds(8));
  writer.stop();
  lib_writer.stop();
  INFO("stdout " << r.out << "\nstderr " << r.err);
  REQUIRE(r.rc == 0);
  {
    const auto o = lib_writer.outcome();
    MESSAGE("lib/etcd writer: " << o.acked << " answered, " << o.failed << " failed, " << o.held << " held, "
                                << o.missing << " answered but missing, " << o.twice << " applied twice\n"
                                << o.errors);
    CHECK(o.acked >= 100);
    CHECK(o.missing == 0);
    CHECK(o.twice == 0);
    // A failed put applied or not: never more keys than puts answered or failed.
    CHECK(o.held <= o.acked + static_cast<std::size_t>(o.failed));
  }
  MESSAGE("writer: " << writer.puts() << " puts, " << writer.failed() << " failed");
  INFO("writer: " << writer.puts() << " puts; failed: " << writer.log());
  CHECK(writer.puts() >= 20);
  // A handover itself may drop the one proposal in flight at the old
  // leader (docs/break-glass-design.md measured 1 put in 30 moves): that
  // one put is allowed, and the logs below tell a handover from the
  // election the missing move causes, which fails puts for seconds.
  CHECK(writer.failed() == writer.handover());
  CHECK(writer.failed() <= 1);
  // Every election the members that stay started was the handover's
  // (MsgTimeoutNow); one of their own follows a leader that vanished.
  for (const auto& entry : offsets) {
    // No structured binding: clang refuses one captured by INFO's lambda.
    const std::string& m = entry.first;
    const std::size_t offset = entry.second;
    const std::string log = read_from(c.etcd_log_path(m), offset);
    MESSAGE(m << ": " << occurrences(log, "is starting a new election") << " election(s), "
              << occurrences(log, "received MsgTimeoutNow") << " on a handover, "
              << occurrences(log, "became pre-candidate") << " pre-vote(s)");
    INFO(m << " logged " << occurrences(log, "is starting a new election") << " elections, "
           << occurrences(log, "received MsgTimeoutNow") << " on a handover");
    CHECK(occurrences(log, "is starting a new election") == occurrences(log, "received MsgTimeoutNow"));
    CHECK(occurrences(log, "became pre-candidate") == 0);
  }
  // The plan the run took: the handover, then the delete.
  const json doc = json::parse(r.out);
  REQUIRE(doc["steps"].size() >= 2);
  CHECK(doc["steps"].size() == 4);
  CHECK(doc["steps"][0]["step"] == "move-leader");
  CHECK(doc["steps"][0]["outcome"] == "done");
  CHECK(doc["steps"][0]["detail"].get<std::string>().rfind("leader now ", 0) == 0);
  CHECK(doc["steps"][1]["step"] == "delete-member");
  CHECK(doc["steps"][1]["detail"] == "deleted");  // leadership had not come back

  CHECK(c.leader() != leader);
  c.check_settled(3, "after removing the leader");
  auto errors = c.operator_errors(log_start);
  INFO("operator errors: " << json(errors).dump(2));
  CHECK(errors.empty());
}
