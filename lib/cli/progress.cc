#include "cli/progress.h"

#include <unistd.h>

#include "base/error.h"

namespace cli {

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void Progress::update(const std::string& text, Clock::time_point now) {
  if (quiet_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_) {
    out_ << "\r\033[K" << base::fold_line(text);
    out_.flush();
    dirty_ = true;
    return;
  }
  if (printed_once_ && now - last_plain_ < plain_interval_) return;
  printed_once_ = true;
  last_plain_ = now;
  out_ << base::fold_line(text) << '\n';
  out_.flush();
}

void Progress::line(const std::string& text) {
  if (quiet_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_ && dirty_) out_ << "\r\033[K";
  dirty_ = false;
  out_ << base::fold_line(text) << '\n';
  out_.flush();
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (terminal_ && dirty_) {
    out_ << "\r\033[K";
    out_.flush();
  }
  dirty_ = false;
}

}  // namespace cli
