#include "backup/hashing_sink.h"

namespace backup {

cli::Status HashingSink::write(std::string_view data) {
  sha_.update(data);
  bytes_ += data.size();
  if (next_ != nullptr) return next_->write(data);
  return {};
}

cli::Status HashingSink::commit() {
  digest_ = sha_.finish();
  if (next_ != nullptr) return next_->commit();
  return {};
}

void HashingSink::abort() noexcept {
  if (next_ != nullptr) next_->abort();
}

}  // namespace backup
