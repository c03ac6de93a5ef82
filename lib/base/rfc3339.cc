#include "base/rfc3339.h"

#include <cstdio>
#include <string>

namespace base {

std::optional<std::time_t> parse_rfc3339_seconds(std::string_view s) {
  int Y, M, D, h, m, sec;
  char rest[64] = {0};
  const std::string str(s.substr(0, 60));
  if (std::sscanf(str.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%63s", &Y, &M, &D, &h, &m, &sec, rest) < 6) {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = Y - 1900;
  tm.tm_mon = M - 1;
  tm.tm_mday = D;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = sec;
  std::time_t t = timegm(&tm);
  std::string_view r(rest);
  if (!r.empty() && r.front() == '.') {
    std::size_t i = 1;
    while (i < r.size() && r[i] >= '0' && r[i] <= '9') ++i;
    r.remove_prefix(i);
  }
  if (r.empty() || r == "Z" || r == "z") return t;
  if ((r.front() == '+' || r.front() == '-') && r.size() >= 6) {
    int oh = 0, om = 0;
    if (std::sscanf(std::string(r.substr(1)).c_str(), "%2d:%2d", &oh, &om) != 2) return std::nullopt;
    const int off = (oh * 60 + om) * 60;
    return r.front() == '+' ? t - off : t + off;
  }
  return std::nullopt;
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view s) {
  using clock = std::chrono::system_clock;
  auto t = parse_rfc3339_seconds(s);
  if (!t) return std::nullopt;
  // A nanosecond time_point ends in 2262 (and begins in 1677); a time past
  // an end is held at it instead of overflowing into the past, so that an
  // exec credential expiring in 9999 counts as not expiring rather than as
  // long expired (found by fuzz/rfc3339_fuzz.cc).
  constexpr auto kMax = std::chrono::duration_cast<std::chrono::seconds>(clock::duration::max()).count();
  constexpr auto kMin = std::chrono::duration_cast<std::chrono::seconds>(clock::duration::min()).count();
  if (*t >= kMax) return clock::time_point::max();
  if (*t <= kMin) return clock::time_point::min();
  return clock::from_time_t(*t);
}

namespace {

std::string utc_strftime(std::time_t t, const char* format) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

std::string format_rfc3339(std::time_t t) { return utc_strftime(t, "%Y-%m-%dT%H:%M:%SZ"); }

std::string format_utc_stamp(std::time_t t) { return utc_strftime(t, "%Y%m%d-%H%M%S"); }

}  // namespace base
