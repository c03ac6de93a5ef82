#include "backup/fanout_sink.h"

#include <doctest/doctest.h>

#include <optional>
#include <string>

namespace {

struct Recorder : base::Sink {
  std::string data;
  bool fail_write = false, fail_commit = false;
  int commits = 0, aborts = 0;
  base::Status write(std::string_view d) override {
    if (fail_write) return base::make_error(base::ErrorKind::Failed, "write failed");
    data.append(d);
    return {};
  }
  base::Status commit() override {
    if (fail_commit) {
      ++aborts;  // a sink cleans up after its own failed commit
      return base::make_error(base::ErrorKind::Failed, "commit failed");
    }
    ++commits;
    return {};
  }
  void abort() noexcept override { ++aborts; }
  std::optional<base::Digest> told;
  void written_sha256(const base::Digest& d) override { told = d; }
};

}  // namespace

TEST_CASE("every sink gets every byte and one commit") {
  Recorder a, b;
  backup::FanoutSink f({&a, &b});
  REQUIRE(f.write("ab").ok());
  REQUIRE(f.write("c").ok());
  REQUIRE(f.commit().ok());
  CHECK(a.data == "abc");
  CHECK(b.data == "abc");
  CHECK(a.commits == 1);
  CHECK(b.commits == 1);
  CHECK(a.aborts + b.aborts == 0);
}

TEST_CASE("a failed write aborts every sink") {
  Recorder a, b;
  b.fail_write = true;
  backup::FanoutSink f({&a, &b});
  CHECK_FALSE(f.write("x").ok());
  CHECK(a.aborts == 1);
  CHECK(b.aborts == 1);
  CHECK(a.commits == 0);
}

TEST_CASE("a failed commit aborts the sinks after it, keeps those before it") {
  Recorder a, b, c;
  b.fail_commit = true;
  backup::FanoutSink f({&a, &b, &c});
  REQUIRE(f.write("x").ok());
  auto s = f.commit();
  CHECK_FALSE(s.ok());
  CHECK(a.commits == 1);
  CHECK(a.aborts == 0);
  CHECK(b.aborts == 1);
  CHECK(c.aborts == 1);
  CHECK(c.commits == 0);
}

TEST_CASE("destroyed without commit: every sink aborts") {
  Recorder a;
  {
    backup::FanoutSink f({&a});
    REQUIRE(f.write("x").ok());
  }
  CHECK(a.aborts == 1);
}

TEST_CASE("the stream's sha256 is passed on to every sink") {
  Recorder a, b;
  backup::FanoutSink f({&a, &b});
  REQUIRE(f.write("abc").ok());
  auto d = base::sha256("abc");
  f.written_sha256(d);
  REQUIRE(f.commit().ok());
  CHECK(a.told == d);
  CHECK(b.told == d);
}
