#include "backup/file_sink.h"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "support.h"

namespace {

using unit_test::TempDir;

void spit(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

}  // namespace

TEST_CASE("bytes go to <path>.part until commit renames it over <path>") {
  TempDir d;
  std::string path = d.path + "/snap.db";
  auto sink = backup::FileSink::create(path);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->write("hello ").ok());
  REQUIRE((*sink)->write("world").ok());
  CHECK(std::filesystem::exists(path + ".part"));
  CHECK_FALSE(std::filesystem::exists(path));
  REQUIRE((*sink)->commit().ok());
  CHECK(unit_test::file_bytes(path) == "hello world");
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  CHECK((*sink)->bytes() == 11);
}

TEST_CASE("the file is mode 0600 whatever the umask") {
  TempDir d;
  std::string path = d.path + "/snap.db";
  mode_t old = ::umask(0);
  auto sink = backup::FileSink::create(path);
  ::umask(old);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->write("x").ok());
  struct stat st{};
  REQUIRE(::stat((path + ".part").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  REQUIRE((*sink)->commit().ok());
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
}

TEST_CASE("abort removes the temporary file and keeps an older file untouched") {
  TempDir d;
  std::string path = d.path + "/snap.db";
  spit(path, "old");
  auto sink = backup::FileSink::create(path);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->write("new but partial").ok());
  (*sink)->abort();
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  CHECK(unit_test::file_bytes(path) == "old");
}

TEST_CASE("a sink destroyed without commit leaves nothing behind") {
  TempDir d;
  std::string path = d.path + "/snap.db";
  {
    auto sink = backup::FileSink::create(path);
    REQUIRE(sink.ok());
    REQUIRE((*sink)->write("partial").ok());
  }
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("commit replaces an existing file atomically") {
  TempDir d;
  std::string path = d.path + "/snap.db";
  spit(path, "old");
  auto sink = backup::FileSink::create(path);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->write("new").ok());
  REQUIRE((*sink)->commit().ok());
  CHECK(unit_test::file_bytes(path) == "new");
}

TEST_CASE("a stale .part from a killed run is replaced") {
  TempDir d;
  std::string path = d.path + "/snap.db";
  spit(path + ".part", "stale stale stale");
  auto sink = backup::FileSink::create(path);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->write("fresh").ok());
  REQUIRE((*sink)->commit().ok());
  CHECK(unit_test::file_bytes(path) == "fresh");
}

TEST_CASE("a directory that does not exist is an error naming the file") {
  auto sink = backup::FileSink::create("/nonexistent-dir-for-test/snap.db");
  REQUIRE_FALSE(sink.ok());
  CHECK(sink.error().object.find("/nonexistent-dir-for-test/snap.db.part") != std::string::npos);
}

TEST_CASE("only a regular file is replaced: a FIFO at the path or at .part is refused and stays") {
  TempDir d;
  const std::string fifo = d.path + "/fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  auto at_path = backup::FileSink::create(fifo);
  REQUIRE_FALSE(at_path.ok());
  CHECK(at_path.error().kind == base::ErrorKind::Usage);
  CHECK(at_path.error().one_line() == "file \"" + fifo + "\": is a FIFO, not a regular file; give another path");
  CHECK_FALSE(std::filesystem::exists(fifo + ".part"));

  const std::string path = d.path + "/snap.db";
  REQUIRE(::mkfifo((path + ".part").c_str(), 0600) == 0);
  auto at_part = backup::FileSink::create(path);
  REQUIRE_FALSE(at_part.ok());
  CHECK(at_part.error().kind == base::ErrorKind::Usage);
  CHECK(std::filesystem::is_fifo(path + ".part"));
}

TEST_CASE("commit does not replace what appeared at the path meanwhile unless it is a regular file") {
  TempDir d;
  const std::string path = d.path + "/snap.db";
  auto sink = backup::FileSink::create(path);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->write("bytes").ok());
  REQUIRE(::symlink("/dev/null", path.c_str()) == 0);
  auto done = (*sink)->commit();
  REQUIRE_FALSE(done.ok());
  CHECK(done.error().kind == base::ErrorKind::Usage);
  CHECK(std::filesystem::is_symlink(path));
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
}
