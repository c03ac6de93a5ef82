#include "base/output_path.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace base {

namespace {

PathKind kind_of(const struct stat& st) {
  switch (st.st_mode & S_IFMT) {
    case S_IFREG: return PathKind::Regular;
    case S_IFDIR: return PathKind::Directory;
    case S_IFLNK: return PathKind::Symlink;
    case S_IFCHR: return PathKind::CharDevice;
    case S_IFBLK: return PathKind::BlockDevice;
    case S_IFIFO: return PathKind::Fifo;
    case S_IFSOCK: return PathKind::Socket;
    default: return PathKind::Other;
  }
}

// `to "<target>", a character device` for a symbolic link.
std::string link_target(const std::string& path) {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink(path.c_str(), buf.data(), buf.size() - 1);
  std::string out = n >= 0 ? "to \"" + std::string(buf.data(), static_cast<std::size_t>(n)) + "\"" : "";
  struct stat st {};
  const std::string what = ::stat(path.c_str(), &st) == 0 ? std::string(describe(kind_of(st))) : "which does not exist";
  return out.empty() ? what : out + ", " + what;
}

Error io_error(const std::string& what, const std::string& path, int err) {
  return make_error(ErrorKind::Failed, what + ": " + std::strerror(err), "file \"" + path + "\"");
}

}  // namespace

PathKind path_kind(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return PathKind::Absent;
  return kind_of(st);
}

PathKind target_kind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return PathKind::Absent;
  return kind_of(st);
}

std::string_view describe(PathKind kind) {
  switch (kind) {
    case PathKind::Absent: return "nothing";
    case PathKind::Regular: return "a regular file";
    case PathKind::Directory: return "a directory";
    case PathKind::Symlink: return "a symbolic link";
    case PathKind::CharDevice: return "a character device";
    case PathKind::BlockDevice: return "a block device";
    case PathKind::Fifo: return "a FIFO";
    case PathKind::Socket: return "a socket";
    case PathKind::Other: return "a special file";
  }
  return "a special file";
}

Status check_path_kind(const std::string& path, std::initializer_list<PathKind> allowed, const std::string& hint) {
  const PathKind kind = path_kind(path);
  if (std::find(allowed.begin(), allowed.end(), kind) != allowed.end()) return {};
  std::string is = "is " + std::string(describe(kind));
  if (kind == PathKind::Symlink) is += " (" + link_target(path) + ")";
  std::string want;
  for (PathKind k : allowed) {
    if (k == PathKind::Absent) continue;
    want += (want.empty() ? ", not " : " or ") + std::string(describe(k));
  }
  return make_error(ErrorKind::Usage, is + want, "file \"" + path + "\"", hint);
}

Status check_output_file(const std::string& path, const std::string& hint) {
  if (auto s = check_path_kind(path, {PathKind::Absent, PathKind::Regular}, hint); !s) return s;
  // The temporary name is removed when stale: only a regular file may be.
  return check_path_kind(path + ".part", {PathKind::Absent, PathKind::Regular},
                         "\"" + path + "\" is written through it: remove it, or " + hint);
}

Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode, const std::string& hint) {
  if (auto s = check_output_file(path, hint); !s) return s;
  const std::string part = path + ".part";
  if (::unlink(part.c_str()) != 0 && errno != ENOENT) return io_error("cannot remove stale temporary file", part, errno);
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return io_error("cannot create", part, errno);
  int err = 0;
  std::string_view left = content;
  while (!left.empty() && err == 0) {
    const ssize_t n = ::write(fd, left.data(), left.size());
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) left.remove_prefix(static_cast<std::size_t>(n));
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (err == 0 && ::fchmod(fd, mode) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(part.c_str());
    return io_error("cannot write", part, err);
  }
  // Checked again just before the rename: what may have appeared at the
  // path meanwhile is not replaced either.
  if (auto s = check_path_kind(path, {PathKind::Absent, PathKind::Regular}, hint); !s) {
    ::unlink(part.c_str());
    return s;
  }
  if (::rename(part.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(part.c_str());
    return io_error("cannot rename " + part + " to", path, err);
  }
  return {};
}

}  // namespace base
