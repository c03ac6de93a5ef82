// RFC 3339 times as Kubernetes writes them (metav1.Time, MicroTime, and the
// exec plugin's expirationTimestamp): "2030-01-02T05:04:05Z", with an
// optional fraction and a "Z" or "+hh:mm"/"-hh:mm" offset.
#pragma once

#include <chrono>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>

namespace base {

// Seconds since the epoch (UTC). Fractions are dropped. Seconds, because a
// nanosecond time_point overflows after 2262 and some objects carry far
// future times.
std::optional<std::time_t> parse_rfc3339_seconds(std::string_view s);

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view s);

// The instant in UTC to the second, as Kubernetes writes it: "2030-01-02T03:04:05Z".
std::string format_rfc3339(std::time_t t);

// The same instant for names of objects and files, which allow no colon:
// "20300102-030405".
std::string format_utc_stamp(std::time_t t);

}  // namespace base
