// Helpers shared by the unit tests of every folder: files read from the
// source tree, temporary directories and fixed instants.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <stdlib.h>

namespace unit_test {

// The bytes of a file under the source tree, e.g. "tests/unit/etcd/testdata/ca.pem".
inline std::string source_file(const std::string& relative) {
  std::ifstream f(std::string(SOURCE_ROOT) + "/" + relative);
  REQUIRE_MESSAGE(f.good(), "missing test file " << relative);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A UTC instant, the way tests write dates.
inline std::chrono::system_clock::time_point utc(int year, int month, int day, int hour = 0, int minute = 0,
                                                  int second = 0) {
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return std::chrono::system_clock::from_time_t(timegm(&tm));
}

// A directory of its own under /tmp, removed with everything in it.
struct TempDir {
  std::string path;
  TempDir() {
    std::string t = "/tmp/unit-test-XXXXXX";
    REQUIRE(mkdtemp(t.data()) != nullptr);
    path = t;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Writes `text` to `name` inside the directory and gives its path.
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path + "/" + name, std::ios::binary) << text;
    return path + "/" + name;
  }
};

// A file's bytes; empty when it cannot be read.
inline std::string file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace unit_test
