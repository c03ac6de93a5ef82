#include "etcd/snapshot.h"

#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <random>
#include <vector>

#include "backup/file_sink.h"
#include "base/sha256.h"
#include "support.h"

namespace {

struct Message {
  std::string blob;
  std::uint64_t remaining = 0;
};

// A stream as etcd sends it: 32 KiB chunks with remaining_bytes, then one
// message with the sha256 of the db (docs/rules.md#snapshot-stream).
std::vector<Message> record(const std::string& db) {
  std::vector<Message> out;
  const std::size_t chunk = 32 * 1024;
  for (std::size_t off = 0; off < db.size(); off += chunk) {
    std::string blob = db.substr(off, chunk);
    out.push_back({blob, db.size() - off - blob.size()});
  }
  auto d = base::sha256(db);
  out.push_back({std::string(reinterpret_cast<const char*>(d.data()), d.size()), 0});
  return out;
}

std::string fake_db(std::size_t n) {
  std::mt19937 rng(42);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng() & 0xff);
  return s;
}

using unit_test::TempDir;

base::Status replay(const std::vector<Message>& msgs, const std::string& path, std::string* sha = nullptr) {
  auto sink = backup::FileSink::create(path);
  REQUIRE(sink.ok());
  etcd::SnapshotReceiver rx(**sink, {}, "endpoint test");
  for (const auto& m : msgs) {
    if (auto st = rx.add(m.blob, m.remaining); !st) return st;
  }
  auto st = rx.finish();
  if (sha != nullptr) *sha = rx.sha256_hex();
  return st;
}

}  // namespace

TEST_CASE("a whole stream is saved as db followed by its sha256, as etcdctl saves it") {
  TempDir dir;
  std::string db = fake_db(5 * 32 * 1024 + 100);
  std::string path = dir.path + "/snap.db";
  std::string sha;
  REQUIRE(replay(record(db), path, &sha).ok());
  std::string saved = unit_test::file_bytes(path);
  auto d = base::sha256(db);
  CHECK(saved == db + std::string(reinterpret_cast<const char*>(d.data()), d.size()));
  CHECK(sha == base::to_hex(d));
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
}

TEST_CASE("one flipped byte anywhere is rejected and leaves no file") {
  TempDir dir;
  std::string db = fake_db(3 * 32 * 1024);
  for (std::size_t where : {std::size_t{0}, std::size_t{40000}, db.size() - 1, db.size() + 5}) {
    CAPTURE(where);
    auto msgs = record(db);
    std::size_t off = where;
    for (auto& m : msgs) {
      if (off < m.blob.size()) {
        m.blob[off] = static_cast<char>(m.blob[off] ^ 0x01);
        break;
      }
      off -= m.blob.size();
    }
    std::string path = dir.path + "/flipped.db";
    auto st = replay(msgs, path);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().reason == "SnapshotCorrupt");
    CHECK(st.error().message.find("sha256") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK_FALSE(std::filesystem::exists(path + ".part"));
  }
}

TEST_CASE("a stream cut short is rejected and leaves no file") {
  TempDir dir;
  std::string db = fake_db(4 * 32 * 1024);
  auto msgs = record(db);
  std::string path = dir.path + "/short.db";

  SUBCASE("missing the trailer message") {
    msgs.pop_back();
    auto st = replay(msgs, path);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().reason == "SnapshotCorrupt");
  }
  SUBCASE("missing data chunks") {
    msgs.erase(msgs.begin() + 2, msgs.end());
    auto st = replay(msgs, path);
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().message.find("cut short") != std::string::npos);
  }
  SUBCASE("the trailer itself truncated") {
    msgs.back().blob.resize(20);
    auto st = replay(msgs, path);
    REQUIRE_FALSE(st.ok());
  }
  SUBCASE("nothing at all") {
    auto st = replay({}, path);
    REQUIRE_FALSE(st.ok());
  }
  CHECK_FALSE(std::filesystem::exists(path));
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
}

TEST_CASE("the trailer is found however the stream is chunked") {
  TempDir dir;
  std::string db = fake_db(1000);
  auto d = base::sha256(db);
  std::string all = db + std::string(reinterpret_cast<const char*>(d.data()), d.size());
  for (std::size_t step : {std::size_t{1}, std::size_t{7}, std::size_t{31}, std::size_t{32}, std::size_t{33},
                           std::size_t{1032}}) {
    CAPTURE(step);
    std::vector<Message> msgs;
    for (std::size_t off = 0; off < all.size(); off += step) msgs.push_back({all.substr(off, step), 0});
    CHECK(replay(msgs, dir.path + "/chunked.db").ok());
  }
}

TEST_CASE("progress reports bytes received against the announced size") {
  TempDir dir;
  std::string db = fake_db(3 * 32 * 1024);
  auto sink = backup::FileSink::create(dir.path + "/p.db");
  REQUIRE(sink.ok());
  std::vector<std::pair<std::uint64_t, std::uint64_t>> seen;
  etcd::SnapshotReceiver rx(**sink, [&](std::uint64_t done, std::uint64_t total) { seen.emplace_back(done, total); },
                            "x");
  for (const auto& m : record(db)) REQUIRE(rx.add(m.blob, m.remaining).ok());
  REQUIRE(rx.finish().ok());
  REQUIRE(seen.size() == 4);
  CHECK(seen[0] == std::make_pair(std::uint64_t{32768}, std::uint64_t{db.size()}));
  CHECK(seen.back().first == db.size() + 32);
}

namespace {

// Records what a receiver hands its sink, and when the digest arrives.
struct TellingSink : base::Sink {
  std::string data;
  std::optional<base::Digest> told;
  bool told_before_commit = false;
  base::Status write(std::string_view d) override {
    data.append(d);
    return {};
  }
  base::Status commit() override {
    told_before_commit = told.has_value();
    return {};
  }
  void abort() noexcept override {}
  void written_sha256(const base::Digest& d) override { told = d; }
};

}  // namespace

TEST_CASE("the sink is told the sha256 of every byte it got, trailer included, before its commit") {
  std::string db = fake_db(3 * 32 * 1024 + 7);
  TellingSink sink;
  etcd::SnapshotReceiver rx(sink, {}, "endpoint test");
  for (const auto& m : record(db)) REQUIRE(rx.add(m.blob, m.remaining).ok());
  REQUIRE(rx.finish().ok());
  REQUIRE(sink.told.has_value());
  CHECK(sink.told_before_commit);
  CHECK(*sink.told == base::sha256(sink.data));
  CHECK(rx.stream_sha256_hex() == base::to_hex(base::sha256(sink.data)));
  // The db's own digest stays the trailer's, not the stream's.
  CHECK(rx.sha256_hex() == base::to_hex(base::sha256(db)));
  CHECK(rx.sha256_hex() != rx.stream_sha256_hex());
}

TEST_CASE("a corrupt stream tells the sink nothing") {
  std::string db = fake_db(2 * 32 * 1024);
  auto msgs = record(db);
  msgs.front().blob[5] ^= 1;
  TellingSink sink;
  etcd::SnapshotReceiver rx(sink, {}, "endpoint test");
  for (const auto& m : msgs) REQUIRE(rx.add(m.blob, m.remaining).ok());
  CHECK_FALSE(rx.finish().ok());
  CHECK_FALSE(sink.told.has_value());
}
