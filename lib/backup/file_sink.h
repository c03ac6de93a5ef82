// A local file written atomically: bytes go to "<path>.part" (mode 0600,
// created exclusively), commit() fsyncs it, renames it over <path> and fsyncs
// the directory. Readers see either the old file or the complete new one.
// Only a regular file is ever replaced: a device, FIFO, socket, directory
// or symbolic link at the path (or at "<path>.part") is a usage error, at
// create() and again at commit() (docs/rules.md#files-the-user-names).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "base/sink.h"

namespace backup {

class FileSink final : public base::Sink {
 public:
  // Creates "<path>.part"; a stale one from a killed run (a regular file) is replaced.
  static base::Result<std::unique_ptr<FileSink>> create(const std::string& path);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  base::Status write(std::string_view data) override;
  base::Status commit() override;
  void abort() noexcept override;

  const std::string& path() const { return path_; }
  std::string part_path() const { return path_ + ".part"; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  FileSink(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_ = -1;
  std::uint64_t bytes_ = 0;
  bool done_ = false;
};

}  // namespace backup
