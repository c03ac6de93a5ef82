#include "backup/fanout_sink.h"

namespace backup {

FanoutSink::~FanoutSink() {
  if (!done_) abort();
}

base::Status FanoutSink::write(std::string_view data) {
  for (base::Sink* s : sinks_) {
    if (auto st = s->write(data); !st) {
      abort();
      return st;
    }
  }
  return {};
}

base::Status FanoutSink::commit() {
  for (; committed_ < sinks_.size(); ++committed_) {
    if (auto st = sinks_[committed_]->commit(); !st) {
      ++committed_;  // that sink cleaned up after itself
      abort();
      return st;
    }
  }
  done_ = true;
  return {};
}

void FanoutSink::written_sha256(const base::Digest& d) {
  for (base::Sink* s : sinks_) s->written_sha256(d);
}

void FanoutSink::abort() noexcept {
  if (done_) return;
  done_ = true;
  for (std::size_t i = committed_; i < sinks_.size(); ++i) sinks_[i]->abort();
}

}  // namespace backup
