#include "base/duration.h"

#include <cctype>

namespace base {

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  auto bad = [&] {
    return make_error(ErrorKind::Usage, "invalid duration \"" + text + "\"", {},
                      "use a number with a unit, e.g. 30s, 5m, 1h30m, 500ms");
  };
  if (text.empty()) return bad();
  bool all_digits = true;
  for (char c : text) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
  if (all_digits) {
    if (text.size() > 9) return bad();
    return std::chrono::milliseconds(std::stoll(text) * 1000);
  }
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (start == i) return bad();
    double value = 0;
    try {
      value = std::stod(text.substr(start, i - start));
    } catch (...) {
      return bad();
    }
    size_t ustart = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string unit = text.substr(ustart, i - ustart);
    double scale = 0;
    if (unit == "ms") scale = 1;
    else if (unit == "s") scale = 1000;
    else if (unit == "m") scale = 60000;
    else if (unit == "h") scale = 3600000;
    else return bad();
    total_ms += value * scale;
  }
  if (total_ms > 1e12) return bad();
  return std::chrono::milliseconds(static_cast<long long>(total_ms));
}

}  // namespace base
