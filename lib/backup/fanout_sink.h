// One stream written to several sinks at once (a local file and S3), so a
// snapshot is read from etcd once whatever the number of destinations. A
// failed write aborts every sink; commit() commits them in the order given
// and, if one fails, aborts those not committed yet (put the sink most likely
// to fail, the remote one, first).
#pragma once

#include <vector>

#include "backup/sink.h"

namespace backup {

class FanoutSink final : public Sink {
 public:
  explicit FanoutSink(std::vector<Sink*> sinks) : sinks_(std::move(sinks)) {}
  ~FanoutSink() override;

  cli::Status write(std::string_view data) override;
  cli::Status commit() override;
  void written_sha256(const Digest& d) override;
  void abort() noexcept override;

 private:
  std::vector<Sink*> sinks_;
  std::size_t committed_ = 0;
  bool done_ = false;
};

}  // namespace backup
