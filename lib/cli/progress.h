// Progress of long steps on stderr: one overprinted line on a terminal, plain
// lines otherwise (throttled, so logs stay readable), nothing with -q.
#pragma once

#include <chrono>
#include <mutex>
#include <ostream>
#include <string>

namespace cli {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;

  Progress(std::ostream& out, bool terminal, bool quiet,
           std::chrono::milliseconds plain_interval = std::chrono::seconds(2))
      : out_(out), terminal_(terminal), quiet_(quiet), plain_interval_(plain_interval) {}
  ~Progress() { finish(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  static bool stderr_is_terminal();

  // A transient state; plain mode prints it only every plain_interval.
  void update(const std::string& text, Clock::time_point now = Clock::now());
  // A line that must stay (a step finished); always printed unless quiet.
  void line(const std::string& text);
  // Clears an overprinted line, if any.
  void finish();

 private:
  std::ostream& out_;
  bool terminal_;
  bool quiet_;
  std::chrono::milliseconds plain_interval_;
  bool dirty_ = false;
  bool printed_once_ = false;
  Clock::time_point last_plain_{};
  std::mutex mu_;
};

}  // namespace cli
