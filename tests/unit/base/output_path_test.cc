#include "base/output_path.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <cstring>
#include <string>

#include "support.h"

namespace {

using base::PathKind;
using unit_test::TempDir;

// A character device like /dev/null (1, 3) at `path`: mknod needs root, so
// without it the system's /dev/null is named instead (checked, never written).
std::string char_device(const TempDir& d, const std::string& name) {
  const std::string path = d.path + "/" + name;
  if (::mknod(path.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0) return path;
  REQUIRE_MESSAGE(::geteuid() != 0, "mknod failed as root: " << std::strerror(errno));
  return "/dev/null";
}

std::string fifo(const TempDir& d, const std::string& name) {
  const std::string path = d.path + "/" + name;
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  return path;
}

// A bound unix socket (closed again: the file stays, as a server's does).
std::string socket_file(const TempDir& d, const std::string& name) {
  const std::string path = d.path + "/" + name;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(path.size() < sizeof(addr.sun_path));
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0);
  ::close(fd);
  return path;
}

std::string directory(const TempDir& d, const std::string& name) {
  const std::string path = d.path + "/" + name;
  REQUIRE(::mkdir(path.c_str(), 0700) == 0);
  return path;
}

std::string symlink_to(const TempDir& d, const std::string& name, const std::string& target) {
  const std::string path = d.path + "/" + name;
  REQUIRE(::symlink(target.c_str(), path.c_str()) == 0);
  return path;
}

PathKind kind_at(const std::string& path) { return base::path_kind(path); }

}  // namespace

TEST_CASE("path_kind tells each kind of file apart; a symbolic link is itself, target_kind follows it") {
  TempDir d;
  const std::string dev = char_device(d, "null");
  CHECK(kind_at(d.path + "/none") == PathKind::Absent);
  CHECK(kind_at(d.write("f", "x")) == PathKind::Regular);
  CHECK(kind_at(directory(d, "dir")) == PathKind::Directory);
  CHECK(kind_at(dev) == PathKind::CharDevice);
  CHECK(kind_at(fifo(d, "fifo")) == PathKind::Fifo);
  CHECK(kind_at(socket_file(d, "sock")) == PathKind::Socket);
  const std::string link = symlink_to(d, "link", dev);
  CHECK(kind_at(link) == PathKind::Symlink);
  CHECK(base::target_kind(link) == PathKind::CharDevice);
  CHECK(base::target_kind(symlink_to(d, "dirlink", d.path + "/dir")) == PathKind::Directory);
  CHECK(kind_at(d.path + "/f/below-a-file") == PathKind::Absent);
}

TEST_CASE("check_output_file: absent or a regular file passes, every other kind is a usage error naming it") {
  TempDir d;
  const std::string hint = "give another PATH";
  CHECK(base::check_output_file(d.path + "/new.db", hint).ok());
  CHECK(base::check_output_file(d.write("old.db", "x"), hint).ok());

  auto refused = [&](const std::string& path, const std::string& message) {
    auto s = base::check_output_file(path, hint);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == base::ErrorKind::Usage);
    CHECK(s.error().one_line() == "file \"" + path + "\": " + message + "; " + hint);
  };
  const std::string dev = char_device(d, "null");
  refused(dev, "is a character device, not a regular file");
  refused(fifo(d, "fifo"), "is a FIFO, not a regular file");
  refused(socket_file(d, "sock"), "is a socket, not a regular file");
  refused(directory(d, "dir"), "is a directory, not a regular file");

  // A symbolic link is refused whatever it points at, its target named.
  refused(symlink_to(d, "to-dev", dev), "is a symbolic link (to \"" + dev + "\", a character device), not a regular file");
  refused(symlink_to(d, "to-fifo", d.path + "/fifo"),
          "is a symbolic link (to \"" + d.path + "/fifo\", a FIFO), not a regular file");
  refused(symlink_to(d, "to-sock", d.path + "/sock"),
          "is a symbolic link (to \"" + d.path + "/sock\", a socket), not a regular file");
  refused(symlink_to(d, "to-dir", d.path + "/dir"),
          "is a symbolic link (to \"" + d.path + "/dir\", a directory), not a regular file");
  refused(symlink_to(d, "to-file", "old.db"), "is a symbolic link (to \"old.db\", a regular file), not a regular file");
  refused(symlink_to(d, "dangling", d.path + "/nowhere"),
          "is a symbolic link (to \"" + d.path + "/nowhere\", which does not exist), not a regular file");
}

TEST_CASE("check_output_file: the .part beside the file is held to the same rule") {
  TempDir d;
  fifo(d, "snap.db.part");
  auto s = base::check_output_file(d.path + "/snap.db", "give another PATH");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().kind == base::ErrorKind::Usage);
  CHECK(s.error().one_line() == "file \"" + d.path + "/snap.db.part\": is a FIFO, not a regular file; \"" + d.path +
                                    "/snap.db\" is written through it: remove it, or give another PATH");
  d.write("other.db.part", "stale");
  CHECK(base::check_output_file(d.path + "/other.db", "give another PATH").ok());
}

TEST_CASE("check_path_kind names every kind it allows") {
  TempDir d;
  auto s = base::check_path_kind(fifo(d, "fifo"), {PathKind::Absent, PathKind::Directory, PathKind::Regular}, "h");
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "is a FIFO, not a directory or a regular file");
  CHECK(base::check_path_kind(directory(d, "dir"), {PathKind::Absent, PathKind::Directory}, "h").ok());
}

TEST_CASE("write_file_atomically replaces a regular file and leaves every special file as it was") {
  TempDir d;
  const std::string file = d.write("page.1", "old");
  REQUIRE(base::write_file_atomically(file, "new", 0644, "h").ok());
  CHECK(unit_test::file_bytes(file) == "new");
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);
  CHECK(kind_at(file + ".part") == PathKind::Absent);

  // Only a device made here is written at (as root); /dev/null is never.
  const std::string dev = char_device(d, "null");
  if (dev != "/dev/null") {
    auto s = base::write_file_atomically(dev, "x", 0644, "h");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().kind == base::ErrorKind::Usage);
    REQUIRE(::lstat(dev.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
    CHECK(st.st_rdev == makedev(1, 3));
    CHECK(kind_at(dev + ".part") == PathKind::Absent);
  }
  const std::string f = fifo(d, "fifo");
  CHECK_FALSE(base::write_file_atomically(f, "x", 0644, "h").ok());
  CHECK(kind_at(f) == PathKind::Fifo);
  const std::string link = symlink_to(d, "link", file);
  CHECK_FALSE(base::write_file_atomically(link, "x", 0644, "h").ok());
  CHECK(kind_at(link) == PathKind::Symlink);
  CHECK(unit_test::file_bytes(file) == "new");
  const std::string dir = directory(d, "dir");
  CHECK_FALSE(base::write_file_atomically(dir, "x", 0644, "h").ok());
  CHECK(kind_at(dir) == PathKind::Directory);
}
