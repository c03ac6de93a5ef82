#include "output/archive.h"

#include <doctest/doctest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>

#include "support.h"

namespace {

std::string gunzip(const std::string& gz) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  CHECK(inflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  inflateEnd(&z);
  return out;
}

std::string slurp(const std::filesystem::path& p) { return unit_test::file_bytes(p); }

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/archive-test-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

}  // namespace

TEST_CASE("ustar headers: name, octal size, checksum, magic; the directories first; two zero blocks at the end") {
  auto tar = output::tar_bytes({{"a/b.json", "{}"}, {"c.txt", std::string(600, 'x')}}, "bundle", 1700000000);
  REQUIRE(tar.ok());
  const std::string& t = *tar;
  CHECK(t.size() % 512 == 0);
  CHECK(t.substr(0, 7) == "bundle/");
  CHECK(t[156] == '5');
  CHECK(t.substr(257, 6) == std::string("ustar\0", 6));
  // bundle/, bundle/a/, bundle/a/b.json (+1 data block), bundle/c.txt (+2), two zero blocks.
  CHECK(t.size() == 512 * (1 + 1 + 2 + 3 + 2));
  const std::size_t file = 2 * 512;
  CHECK(t.substr(file, 15) == "bundle/a/b.json");
  CHECK(t.substr(file + 124, 11) == "00000000002");
  unsigned sum = 0;
  for (std::size_t i = 0; i < 512; ++i) sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(t[file + i]);
  CHECK(std::strtoul(t.substr(file + 148, 6).c_str(), nullptr, 8) == sum);
  CHECK(t.substr(t.size() - 1024) == std::string(1024, '\0'));
}

TEST_CASE("paths that climb out, absolute paths and names too long for ustar are refused") {
  CHECK_FALSE(output::tar_bytes({{"../x", ""}}, "b", 0).ok());
  CHECK_FALSE(output::tar_bytes({{"/etc/x", ""}}, "b", 0).ok());
  CHECK_FALSE(output::tar_bytes({{"a//b", ""}}, "b", 0).ok());
  CHECK_FALSE(output::tar_bytes({{std::string(120, 'n'), ""}}, "b", 0).ok());
  // Long, but splittable into prefix and name.
  CHECK(output::tar_bytes({{std::string(90, 'd') + "/" + std::string(90, 'n'), ""}}, "b", 0).ok());
}

TEST_CASE("gzip round-trips through zlib") {
  std::string data = "hello " + std::string(10000, 'z');
  auto gz = output::gzip(data);
  REQUIRE(gz.ok());
  CHECK(static_cast<unsigned char>((*gz)[0]) == 0x1f);
  CHECK(static_cast<unsigned char>((*gz)[1]) == 0x8b);
  CHECK(gunzip(*gz) == data);
}

TEST_CASE("the .tar.gz extracts with tar; an existing target is refused and left alone") {
  TempDir d;
  const std::string path = (d.path / "b.tar.gz").string();
  const std::string long_name = std::string(80, 'd') + "/" + std::string(60, 'n') + ".json";
  REQUIRE(output::write_tar_gz(path, {{"x/y.json", "{\"a\":1}"}, {long_name, "[]"}}, "bundle", 1700000000).ok());
  CHECK_FALSE(std::filesystem::exists(path + ".part"));
  REQUIRE(std::system(("tar -xzf '" + path + "' -C '" + d.path.string() + "'").c_str()) == 0);
  CHECK(slurp(d.path / "bundle/x/y.json") == "{\"a\":1}");
  CHECK(slurp(d.path / "bundle" / long_name) == "[]");
  auto again = output::write_tar_gz(path, {}, "bundle", 0);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().kind == base::ErrorKind::Refused);
  CHECK(again.error().one_line() == path + ": exists; choose another -f/--file or remove it");
  CHECK_FALSE(output::refuse_existing(path, "-f/--file", false).ok());
  CHECK(output::refuse_existing(path + ".new", "-f/--file", false).ok());
}

TEST_CASE("a directory bundle") {
  TempDir d;
  const auto dir = d.path / "out";
  REQUIRE(output::write_directory(dir.string(), {{"a/b.txt", "b"}, {"c.txt", "c"}}).ok());
  CHECK(slurp(dir / "a/b.txt") == "b");
  CHECK(slurp(dir / "c.txt") == "c");
  CHECK_FALSE(std::filesystem::exists(dir.string() + ".part"));
  CHECK_FALSE(output::write_directory(dir.string(), {}).ok());
}
