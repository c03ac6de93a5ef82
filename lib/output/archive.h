// A support bundle's files written as a directory or as a .tar.gz: a small
// ustar writer (docs/support-bundle.md#archive) and zlib's gzip, so that no
// archive library is needed. Files are written under a `.part` name and
// renamed once complete, so an interrupted run leaves no half archive.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "base/result.h"

namespace output {

struct ArchiveFile {
  std::string path;  // relative, '/'-separated, no ".." (checked)
  std::string content;
};

// The ustar stream: each file under `root/` (regular files, mode 0644,
// directories implied by the paths are emitted first, mode 0755), then the
// two zero blocks. Usage error for a path that does not fit ustar's 100+155
// bytes or climbs out of root.
base::Result<std::string> tar_bytes(const std::vector<ArchiveFile>& files, const std::string& root, std::time_t mtime);

// A gzip member (RFC 1952) of `data`.
base::Result<std::string> gzip(const std::string& data);

// `path` (a .tar.gz) holding `files` under `root/`; the file is private
// (0600) until complete, then 0644.
// Refused (3) when `path` exists: the bundle never replaces a file or folder;
// `flag` names the option to change in the hint. A usage error (128) first
// when what is there is a device, FIFO, socket or symbolic link, or (for a
// file) a directory, or when the `.part` beside it is anything but what a
// killed run leaves: a regular file, or a directory for `dir`
// (docs/rules.md#files-the-user-names).
base::Status refuse_existing(const std::string& path, const std::string& flag, bool dir);

base::Status write_tar_gz(const std::string& path, const std::vector<ArchiveFile>& files, const std::string& root,
                          std::time_t mtime);

// `dir` created (it must not exist) with `files` under it.
base::Status write_directory(const std::string& dir, const std::vector<ArchiveFile>& files);

}  // namespace output
