#include "kube/redact.h"

#include <algorithm>
#include <array>

namespace kube {

namespace {
bool sensitive(std::string_view key) {
  std::string k(key);
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::array<const char*, 7> words = {"token", "password", "secret", "key",
                                                  "credential", "auth", "signature"};
  for (const char* w : words) {
    if (k.find(w) != std::string::npos) return true;
  }
  return false;
}
}  // namespace

std::string redact_query(std::string_view pq) {
  auto q = pq.find('?');
  if (q == std::string_view::npos) return std::string(pq);
  std::string out(pq.substr(0, q + 1));
  std::string_view rest = pq.substr(q + 1);
  bool first = true;
  while (!rest.empty()) {
    auto amp = rest.find('&');
    std::string_view kv = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view() : rest.substr(amp + 1);
    if (!first) out += '&';
    first = false;
    auto eq = kv.find('=');
    std::string_view key = kv.substr(0, eq);
    // "continue" tokens are opaque server state, not credentials.
    if (eq != std::string_view::npos && sensitive(key)) {
      out += std::string(key) + "=REDACTED";
    } else {
      out += std::string(kv);
    }
  }
  return out;
}

std::string redact_invalid_values(std::string_view text) {
  static constexpr std::string_view marker = "Invalid value: \"";
  std::string out;
  size_t pos = 0;
  while (true) {
    auto m = text.find(marker, pos);
    if (m == std::string_view::npos) break;
    out += text.substr(pos, m - pos);
    out += marker;
    out += "REDACTED\"";
    // Skip to the closing quote, honouring backslash escapes.
    size_t i = m + marker.size();
    while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
    pos = std::min(i + 1, text.size());
  }
  out += text.substr(pos);
  return out;
}

}  // namespace kube
