// The files a program writes at a path the user named (a snapshot, a
// support bundle, a safety backup and its owner mark, the man pages): only a
// regular file is ever replaced, and only through `<path>.part` and a
// rename; a device, a FIFO, a socket, a directory or a symbolic link at the
// path is refused before anything is read or written
// (docs/rules.md#files-the-user-names).
#pragma once

#include <sys/types.h>

#include <initializer_list>
#include <string>
#include <string_view>

#include "base/result.h"

namespace base {

enum class PathKind { Absent, Regular, Directory, Symlink, CharDevice, BlockDevice, Fifo, Socket, Other };

// What is at `path` itself: a symbolic link is Symlink, whatever it points
// at. Absent also when the path cannot be examined (a missing parent
// folder, no search permission): creating the file then fails with its own
// error.
PathKind path_kind(const std::string& path);

// What `path` leads to: as path_kind(), but a symbolic link is followed
// (for a folder files are written into: writing inside it replaces nothing).
PathKind target_kind(const std::string& path);

// "a regular file", "a character device", ... for messages.
std::string_view describe(PathKind kind);

// Usage (128) unless what is at `path` is one of `allowed` (Absent to allow
// nothing there): `file "<path>": is a character device, not a regular
// file; <hint>`. A symbolic link is named with its target and what that is.
Status check_path_kind(const std::string& path, std::initializer_list<PathKind> allowed, const std::string& hint);

// A file written through `<path>.part` and a rename: `path` must be absent
// or a regular file (whether an existing one may be replaced is the
// caller's rule), and so must `<path>.part`, which a killed run may have
// left. `hint` says what to give instead, e.g. "give another PATH".
Status check_output_file(const std::string& path, const std::string& hint);

// Writes `content` to `<path>.part` (created exclusively, 0600), fsyncs it,
// sets `mode` and renames it over `path` after check_output_file(): an
// existing regular file is replaced whole, anything else is refused.
Status write_file_atomically(const std::string& path, std::string_view content, mode_t mode, const std::string& hint);

}  // namespace base
