#include "backup/file_sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/output_path.h"

namespace backup {

namespace {

base::Error io_error(const std::string& what, const std::string& path, int err) {
  return base::make_error(base::ErrorKind::Failed, what + ": " + std::strerror(err), "file \"" + path + "\"");
}

std::string dir_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

base::Result<std::unique_ptr<FileSink>> FileSink::create(const std::string& path) {
  // Callers check with their own flag's hint first; this is the rule's floor
  // for every file a sink writes (docs/rules.md#files-the-user-names).
  if (auto s = base::check_output_file(path, "give another path"); !s) return std::move(s).error();
  std::string part = path + ".part";
  // O_EXCL after unlink: never write through a symlink or file someone else
  // placed at the temporary name.
  if (::unlink(part.c_str()) != 0 && errno != ENOENT) return io_error("cannot remove stale temporary file", part, errno);
  int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return io_error("cannot create", part, errno);
  // The umask cannot widen 0600, but a restrictive default ACL could differ:
  // pin the mode explicitly, snapshots hold every secret in the cluster.
  if (::fchmod(fd, 0600) != 0) {
    int e = errno;
    ::close(fd);
    ::unlink(part.c_str());
    return io_error("cannot set mode 0600 on", part, e);
  }
  return std::unique_ptr<FileSink>(new FileSink(path, fd));
}

FileSink::~FileSink() {
  if (!done_) abort();
}

base::Status FileSink::write(std::string_view data) {
  if (fd_ < 0) return base::make_error(base::ErrorKind::Failed, "write after close", "file \"" + part_path() + "\"");
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write", part_path(), errno);
    }
    data.remove_prefix(static_cast<size_t>(n));
    bytes_ += static_cast<std::uint64_t>(n);
  }
  return {};
}

base::Status FileSink::commit() {
  if (fd_ < 0) return base::make_error(base::ErrorKind::Failed, "commit after close", "file \"" + part_path() + "\"");
  std::string part = part_path();
  if (::fsync(fd_) != 0) {
    int e = errno;
    abort();
    return io_error("cannot fsync", part, e);
  }
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) {
    int e = errno;
    abort();
    return io_error("cannot close", part, e);
  }
  // Whatever appeared at the path while the bytes streamed is not replaced
  // unless it is a regular file either.
  if (auto s = base::check_path_kind(path_, {base::PathKind::Absent, base::PathKind::Regular}, "give another path");
      !s) {
    abort();
    return s;
  }
  if (::rename(part.c_str(), path_.c_str()) != 0) {
    int e = errno;
    abort();
    return io_error("cannot rename " + part + " to", path_, e);
  }
  done_ = true;
  // The rename is durable only once the directory entry is.
  int dfd = ::open(dir_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

void FileSink::abort() noexcept {
  if (done_) return;
  done_ = true;
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  ::unlink(part_path().c_str());
}

}  // namespace backup
