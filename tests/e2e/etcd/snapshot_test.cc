// A snapshot of a db of several MB, streamed to the file sink, checked by
// etcd's own tool on the same file.
#include <sys/stat.h>

#include <sstream>

#include "backup/file_sink.h"
#include "base/sha256.h"
#include "etcd_e2e.h"

using namespace etcd_e2e;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void snapshot_of_several_mb(const std::string& version) {
  CAPTURE(version);
  e2e::EtcdCluster c(options(version, 3, true));
  auto cl = client_for(c);
  const std::string value(256 * 1024, 'v');
  std::int64_t rev = 0;
  for (int i = 0; i < 24; ++i) rev = must(cl->put("/big/" + std::to_string(i), value), "put").revision;

  std::string path = c.dir() + "/snap.db";
  auto file = backup::FileSink::create(path);
  REQUIRE(file.ok());
  std::uint64_t last_done = 0, calls = 0;
  bool monotonic = true;
  auto info = must(cl->snapshot(c.client_urls().at(0), **file,
                                [&](std::uint64_t done, std::uint64_t) {
                                  monotonic = monotonic && done > last_done;
                                  last_done = done;
                                  ++calls;
                                }),
                   "snapshot");
  CHECK(monotonic);
  CHECK(calls > 10);
  CHECK(info.bytes > 6u * 1024 * 1024);
  CHECK(info.bytes == last_done);
  CHECK(info.bytes % 512 == 32);
  if (version == "3.6") CHECK_FALSE(info.version.empty());

  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(static_cast<std::uint64_t>(st.st_size) == info.bytes);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(::stat((path + ".part").c_str(), &st) != 0);

  // The file is db ‖ sha256(db), and the stream's digest is the file's.
  std::string saved = slurp(path);
  auto db_sha = base::sha256(std::string_view(saved).substr(0, saved.size() - 32));
  CHECK(base::to_hex(db_sha) == info.sha256);
  CHECK(saved.substr(saved.size() - 32) == std::string(reinterpret_cast<const char*>(db_sha.data()), 32));
  CHECK(saved.size() == info.bytes);
  CHECK(info.stream_sha256 == base::to_hex(base::sha256(saved)));

  // etcd's own tool reads the same file.
  e2e::CommandResult r;
  if (version == "3.4") {
    r = e2e::run({c.etcdctl_path(), "snapshot", "status", path, "-w", "json"}, {{"ETCDCTL_API", "3"}});
  } else {
    r = e2e::run({c.etcdutl_path(), "snapshot", "status", path, "-w", "json"});
  }
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  auto j = nlohmann::json::parse(r.out);
  MESSAGE("snapshot status: " << r.out);
  CHECK(j["revision"].get<std::int64_t>() >= rev);
  CHECK(j["totalKey"].get<std::int64_t>() >= 24);
  CHECK(j["totalSize"].get<std::uint64_t>() + 32 == info.bytes);
}

}  // namespace

TEST_CASE("snapshot of several MB on etcd 3.4") { snapshot_of_several_mb("3.4"); }
TEST_CASE("snapshot of several MB on etcd 3.5") { snapshot_of_several_mb("3.5"); }
TEST_CASE("snapshot of several MB on etcd 3.6") { snapshot_of_several_mb("3.6"); }

TEST_CASE("a snapshot from a stopped member fails and leaves no file") {
  e2e::EtcdCluster c(options("3.6", 1));
  auto cl = client_for(c);
  c.act("stop", "member-0");
  std::string path = c.dir() + "/none.db";
  auto file = backup::FileSink::create(path);
  REQUIRE(file.ok());
  auto r = cl->snapshot(c.client_urls().at(0), **file, {}, std::chrono::system_clock::now() + std::chrono::seconds(3));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::CannotConnect);
  struct stat st{};
  CHECK(::stat(path.c_str(), &st) != 0);
  CHECK(::stat((path + ".part").c_str(), &st) != 0);
}
