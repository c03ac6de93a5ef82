#include "migrate/verdict.h"

#include <algorithm>

namespace migrate {
namespace {

int rank(Severity s) {
  switch (s) {
    case Severity::Blocker: return 0;
    case Severity::Security: return 1;
    case Severity::Warning: return 2;
    case Severity::Note: return 3;
  }
  return 3;
}

int number(const std::string& id) {
  int n = 0;
  for (size_t i = 1; i < id.size() && std::isdigit(static_cast<unsigned char>(id[i])); ++i) n = n * 10 + (id[i] - '0');
  // Runtime blockers follow the planning ones.
  return id.rfind('R', 0) == 0 ? 1000 + n : n;
}

}  // namespace

Severity Verdict::severity() const {
  switch (id.empty() ? 'N' : id[0]) {
    case 'B':
    case 'R': return Severity::Blocker;
    case 'S': return Severity::Security;
    case 'W': return Severity::Warning;
    default: return Severity::Note;
  }
}

void sort_verdicts(std::vector<Verdict>& verdicts) {
  std::stable_sort(verdicts.begin(), verdicts.end(), [](const Verdict& a, const Verdict& b) {
    int ra = rank(a.severity()), rb = rank(b.severity());
    if (ra != rb) return ra < rb;
    return number(a.id) < number(b.id);
  });
}

bool has_blocker(const std::vector<Verdict>& verdicts) {
  return std::any_of(verdicts.begin(), verdicts.end(),
                     [](const Verdict& v) { return v.severity() == Severity::Blocker; });
}

const char* severity_name(Severity s) {
  switch (s) {
    case Severity::Blocker: return "blocker";
    case Severity::Security: return "security";
    case Severity::Warning: return "warning";
    case Severity::Note: return "note";
  }
  return "note";
}

nlohmann::ordered_json to_json(const Verdict& v) {
  return {{"id", v.id}, {"severity", severity_name(v.severity())}, {"message", v.message}};
}

nlohmann::ordered_json to_json(const std::vector<Verdict>& vs) {
  auto a = nlohmann::ordered_json::array();
  for (const auto& v : vs) a.push_back(to_json(v));
  return a;
}

}  // namespace migrate
