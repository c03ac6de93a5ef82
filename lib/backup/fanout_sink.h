// One stream written to several sinks at once (a local file and S3), so a
// snapshot is read from etcd once whatever the number of destinations. A
// failed write aborts every sink; commit() commits them in the order given
// and, if one fails, aborts those not committed yet (put the sink most likely
// to fail, the remote one, first).
#pragma once

#include <vector>

#include "base/sink.h"

namespace backup {

class FanoutSink final : public base::Sink {
 public:
  explicit FanoutSink(std::vector<base::Sink*> sinks) : sinks_(std::move(sinks)) {}
  ~FanoutSink() override;

  base::Status write(std::string_view data) override;
  base::Status commit() override;
  void written_sha256(const base::Digest& d) override;
  void abort() noexcept override;

 private:
  std::vector<base::Sink*> sinks_;
  std::size_t committed_ = 0;
  bool done_ = false;
};

}  // namespace backup
