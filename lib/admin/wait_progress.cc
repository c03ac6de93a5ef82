#include "admin/wait_progress.h"

namespace admin {

std::string short_duration(std::chrono::milliseconds d) {
  const long long s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  if (s < 60) return std::to_string(s < 0 ? 0 : s) + "s";
  return std::to_string(s / 60) + "m" + (s % 60 == 0 ? std::string() : std::to_string(s % 60) + "s");
}

std::string WaitProgress::describe(const std::string& what, const std::string& stand, const std::string& cause) {
  std::string out = what;
  if (!stand.empty()) out += ": " + stand;
  if (!cause.empty()) out += ": " + cause;
  return out;
}

std::optional<WaitProgress::Line> WaitProgress::observe(const std::string& what, const std::string& stand,
                                                        const std::string& cause, Clock::time_point now,
                                                        std::chrono::milliseconds left) {
  std::string key = what;
  key.push_back('\0');
  key += stand;
  key.push_back('\0');
  key += cause;
  if (!key_ || *key_ != key) {
    key_ = std::move(key);
    since_ = shown_ = now;
    return Line{true, describe(what, stand, cause)};
  }
  if (now - shown_ < interval_) return std::nullopt;
  shown_ = now;
  const auto stood = std::chrono::duration_cast<std::chrono::milliseconds>(now - since_);
  return Line{false, what + ": " + (stand.empty() ? std::string() : "still " + stand + ", ") + "for " +
                         short_duration(stood) + " (" + short_duration(left) + " of the budget left)"};
}

}  // namespace admin
