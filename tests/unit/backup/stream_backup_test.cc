// stream_backup() itself needs an etcd (tests/e2e/backup); the checks it
// makes of its local destination before etcd is read do not.
#include "backup/stream_backup.h"

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <filesystem>

#include "support.h"

using unit_test::TempDir;

TEST_CASE("local_backup_path: a folder (a link to one too), and the artefact and its .uid mark regular or absent") {
  TempDir d;
  const std::string file = d.path + "/ns-etcd-migration.db";
  auto ok = backup::local_backup_path(d.path, "ns", "etcd");
  REQUIRE(ok.ok());
  CHECK(*ok == file);
  REQUIRE(::symlink(d.path.c_str(), (d.path + "/link").c_str()) == 0);
  CHECK(backup::local_backup_path(d.path + "/link/", "ns", "etcd").ok());

  auto missing = backup::local_backup_path(d.path + "/none", "ns", "etcd");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().one_line() == "backup directory \"" + d.path + "/none\": is not a directory; create it first");
  REQUIRE(::mkfifo((d.path + "/fifo").c_str(), 0600) == 0);
  auto fifo = backup::local_backup_path(d.path + "/fifo", "ns", "etcd");
  REQUIRE_FALSE(fifo.ok());
  CHECK(fifo.error().kind == base::ErrorKind::Usage);
  CHECK(fifo.error().one_line() ==
        "backup directory \"" + d.path + "/fifo\": is a FIFO, not a directory; choose another --backup-dir");

  // The artefact as a FIFO, then its owner mark as a folder: refused, left as they are.
  REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
  auto artefact = backup::local_backup_path(d.path, "ns", "etcd");
  REQUIRE_FALSE(artefact.ok());
  CHECK(artefact.error().kind == base::ErrorKind::Usage);
  CHECK(artefact.error().one_line() == "file \"" + file +
                                           "\": is a FIFO, not a regular file; move it away or choose another --backup-dir");
  std::filesystem::remove(file);
  std::filesystem::create_directory(file + ".uid");
  auto mark = backup::local_backup_path(d.path, "ns", "etcd");
  REQUIRE_FALSE(mark.ok());
  CHECK(mark.error().one_line().find("file \"" + file + ".uid\": is a directory, not a regular file") == 0);
  CHECK(std::filesystem::is_directory(file + ".uid"));
}
