#include "operator/agent_result.h"

#include <charconv>

namespace op {

namespace {

constexpr std::string_view kMarker = "snapshot uploaded: uri=\"";

std::optional<AgentResult> parse_line(std::string_view line) {
  auto at = line.find(kMarker);
  if (at == std::string_view::npos) return std::nullopt;
  line.remove_prefix(at + kMarker.size());
  constexpr std::string_view size_tag = "\" size=";
  auto end = line.rfind(size_tag);
  if (end == std::string_view::npos || end == 0) return std::nullopt;
  AgentResult r;
  r.uri = std::string(line.substr(0, end));
  line.remove_prefix(end + size_tag.size());
  auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), r.size);
  if (ec != std::errc() || p == line.data()) return std::nullopt;
  line.remove_prefix(static_cast<std::size_t>(p - line.data()));
  constexpr std::string_view sha_tag = " sha256=";
  if (line.substr(0, sha_tag.size()) != sha_tag) return std::nullopt;
  line.remove_prefix(sha_tag.size());
  if (line.size() < 64) return std::nullopt;
  for (char c : line.substr(0, 64)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  if (line.size() > 64 && line[64] != ' ' && line[64] != '\r') return std::nullopt;
  r.sha256 = std::string(line.substr(0, 64));
  return r;
}

}  // namespace

std::optional<AgentResult> parse_agent_result(std::string_view log) {
  std::optional<AgentResult> last;
  while (!log.empty()) {
    auto nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    if (auto r = parse_line(line)) last = std::move(r);
    if (nl == std::string_view::npos) break;
    log.remove_prefix(nl + 1);
  }
  return last;
}

std::string snapshot_job_name(std::string_view snapshot) { return std::string(snapshot) + "-snapshot"; }

std::string last_log_line(std::string_view log, std::size_t limit) {
  auto blank = [](char c) { return c == '\n' || c == '\r' || c == ' ' || c == '\t'; };
  while (!log.empty() && blank(log.back())) log.remove_suffix(1);
  auto nl = log.rfind('\n');
  std::string_view line = nl == std::string_view::npos ? log : log.substr(nl + 1);
  while (!line.empty() && blank(line.front())) line.remove_prefix(1);
  if (line.size() <= limit) return std::string(line);
  return std::string(line.substr(0, limit)) + "...";
}

}  // namespace op
