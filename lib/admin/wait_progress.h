// What a member command's wait prints while it polls (docs/break-glass-design.md#waits):
// where the wait stands and why, once, as a line that stays, whenever either
// changes; while neither does, a progress line at most every `interval`,
// with how long it has stood there and the budget left. So a wait held by
// one cause for minutes says the cause once, not once a poll. Pure: the
// clock is an input.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace admin {

class WaitProgress {
 public:
  using Clock = std::chrono::steady_clock;
  struct Line {
    bool stays = false;  // a new state: a line that stays; else a transient progress line
    std::string text;
  };

  explicit WaitProgress(std::chrono::seconds interval = std::chrono::seconds(30)) : interval_(interval) {}

  // One poll of the wait `what` that found it standing at `stand` (empty
  // when the wait has no word for it) because of `cause` (empty: unknown);
  // `left` is the budget left.
  std::optional<Line> observe(const std::string& what, const std::string& stand, const std::string& cause,
                              Clock::time_point now, std::chrono::milliseconds left);

  // "what: stand: cause", each part when known: the state line, and the
  // text of a timeout.
  static std::string describe(const std::string& what, const std::string& stand, const std::string& cause);

 private:
  std::chrono::seconds interval_;
  std::optional<std::string> key_;
  Clock::time_point since_{}, shown_{};
};

// "45s", "2m15s": a duration as the progress lines print it.
std::string short_duration(std::chrono::milliseconds d);

}  // namespace admin
