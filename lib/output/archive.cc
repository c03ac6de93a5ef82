#include "output/archive.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "base/output_path.h"

namespace output {

namespace {

constexpr std::size_t kBlock = 512;

base::Error usage(const std::string& what, const std::string& subject) {
  return base::make_error(base::ErrorKind::Usage, what, subject);
}

bool safe(const std::string& p) {
  if (p.empty() || p.front() == '/') return false;
  std::size_t start = 0;
  while (start <= p.size()) {
    auto end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    const std::string part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// width-1 octal digits and a NUL, as POSIX ustar writes numbers (callers
// keep values within the digits: sizes of in-memory files, times).
void octal(char* field, std::size_t width, unsigned long long v) {
  field[width - 1] = '\0';
  for (std::size_t i = width - 1; i-- > 0; v >>= 3) field[i] = static_cast<char>('0' + (v & 7));
}

// One header; `name` split into prefix/name at a '/' when over 100 bytes.
base::Result<std::string> header(const std::string& name, std::size_t size, char type, unsigned mode, std::time_t mtime) {
  std::string h(kBlock, '\0');
  std::string prefix, rest = name;
  if (rest.size() > 100) {
    // The rightmost '/' that still fits the prefix leaves the shortest name.
    auto cut = rest.rfind('/', 155);
    if (cut == std::string::npos || cut + 1 >= rest.size() || rest.size() - cut - 1 > 100) {
      return usage("is too long for a tar header", name);
    }
    prefix = rest.substr(0, cut);
    rest = rest.substr(cut + 1);
  }
  if (prefix.size() > 155 || rest.size() > 100) return usage("is too long for a tar header", name);
  std::memcpy(&h[0], rest.data(), rest.size());
  octal(&h[100], 8, mode);
  octal(&h[108], 8, 0);
  octal(&h[116], 8, 0);
  octal(&h[124], 12, size);
  octal(&h[136], 12, static_cast<unsigned long long>(mtime < 0 ? 0 : mtime));
  std::memset(&h[148], ' ', 8);
  h[156] = type;
  std::memcpy(&h[257], "ustar", 6);  // magic "ustar\0"
  std::memcpy(&h[263], "00", 2);
  std::memcpy(&h[265], "root", 4);
  std::memcpy(&h[297], "root", 4);
  std::memcpy(&h[345], prefix.data(), prefix.size());
  unsigned sum = 0;
  for (unsigned char c : h) sum += c;
  octal(&h[148], 7, sum);  // six digits and a NUL, then the space kept
  h[155] = ' ';
  return h;
}

base::Status write_all(int fd, const std::string& data, const std::string& path) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return base::make_error(base::ErrorKind::Failed, std::string("write: ") + std::strerror(errno), path);
    off += static_cast<std::size_t>(n);
  }
  return {};
}

base::Status write_file(const std::string& path, const std::string& data, mode_t mode) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return base::make_error(base::ErrorKind::Failed, std::string("cannot create: ") + std::strerror(errno), path);
  auto st = write_all(fd, data, path);
  if (st && ::fsync(fd) != 0) st = base::make_error(base::ErrorKind::Failed, std::string("fsync: ") + std::strerror(errno), path);
  ::close(fd);
  return st;
}

}  // namespace

base::Result<std::string> tar_bytes(const std::vector<ArchiveFile>& files, const std::string& root, std::time_t mtime) {
  std::string out;
  std::set<std::string> dirs;
  auto add_dir = [&](const std::string& d) -> base::Status {
    if (!dirs.insert(d).second) return {};
    auto h = header(d + "/", 0, '5', 0755, mtime);
    if (!h) return std::move(h).error();
    out += *h;
    return {};
  };
  if (!safe(root)) return usage("is not a relative archive root", root);
  if (auto st = add_dir(root); !st) return std::move(st).error();
  for (const auto& f : files) {
    if (!safe(f.path)) return usage("is not a relative path inside the archive", f.path);
    const std::string full = root + "/" + f.path;
    for (auto slash = full.find('/', root.size() + 1); slash != std::string::npos; slash = full.find('/', slash + 1)) {
      if (auto st = add_dir(full.substr(0, slash)); !st) return std::move(st).error();
    }
    auto h = header(full, f.content.size(), '0', 0644, mtime);
    if (!h) return std::move(h).error();
    out += *h;
    out += f.content;
    out.append((kBlock - f.content.size() % kBlock) % kBlock, '\0');
  }
  out.append(2 * kBlock, '\0');
  return out;
}

base::Result<std::string> gzip(const std::string& data) {
  z_stream z{};
  // 15 window bits + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return base::make_error(base::ErrorKind::Failed, "zlib deflateInit2 failed");
  }
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return base::make_error(base::ErrorKind::Failed, "zlib deflate did not finish");
  return out;
}

base::Status refuse_existing(const std::string& path, const std::string& flag, bool dir) {
  // A device, FIFO, socket or link is a usage error before "exists": no
  // removal makes it a place for a bundle (docs/rules.md#files-the-user-names).
  using base::PathKind;
  const std::string hint = "choose another " + flag;
  auto kind = dir ? base::check_path_kind(path, {PathKind::Absent, PathKind::Directory, PathKind::Regular}, hint)
                  : base::check_output_file(path, hint);
  if (!kind) return kind;
  if (dir) {
    // The bundle is written as <dir>.part, which is removed when stale.
    auto part = base::check_path_kind(path + ".part", {PathKind::Absent, PathKind::Directory}, "remove it, or " + hint);
    if (!part) return part;
  }
  if (base::path_kind(path) != base::PathKind::Absent) {
    return base::make_error(base::ErrorKind::Refused, "exists", path, hint + " or remove it");
  }
  return {};
}

base::Status write_tar_gz(const std::string& path, const std::vector<ArchiveFile>& files, const std::string& root,
                          std::time_t mtime) {
  auto tar = tar_bytes(files, root, mtime);
  if (!tar) return std::move(tar).error();
  auto gz = gzip(*tar);
  if (!gz) return std::move(gz).error();
  if (auto free = refuse_existing(path, "-f/--file", false); !free) return free;
  return base::write_file_atomically(path, *gz, 0644, "choose another -f/--file");
}

base::Status write_directory(const std::string& dir, const std::vector<ArchiveFile>& files) {
  if (auto free = refuse_existing(dir, "--dir", true); !free) return free;
  std::error_code ec;
  const std::string part = dir + ".part";
  std::filesystem::remove_all(part, ec);
  for (const auto& f : files) {
    if (!safe(f.path)) return usage("is not a relative path inside the bundle", f.path);
    const std::filesystem::path p = std::filesystem::path(part) / f.path;
    std::filesystem::create_directories(p.parent_path(), ec);
    if (ec) return base::make_error(base::ErrorKind::Failed, "cannot create: " + ec.message(), p.parent_path().string());
    if (auto st = write_file(p.string(), f.content, 0644); !st) {
      std::filesystem::remove_all(part, ec);
      return st;
    }
  }
  std::filesystem::create_directories(part, ec);
  std::filesystem::rename(part, dir, ec);
  if (ec) return base::make_error(base::ErrorKind::Failed, "rename: " + ec.message(), dir);
  return {};
}

}  // namespace output
