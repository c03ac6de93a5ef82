// Plan verdicts (docs/adoption-verdicts.md): stable ids in JSON output,
// a severity, and a message that carries the particulars.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace migrate {

enum class Severity { Blocker, Security, Warning, Note };

struct Verdict {
  std::string id;  // "B3", "S1", "W7", "N10", "R3"
  std::string message;

  Severity severity() const;  // from the id's letter (R = runtime blocker)
  bool operator==(const Verdict&) const = default;
};

// Plan order (docs/rules.md#plan-order): blockers, security warnings, warnings, notes; by id
// number inside each; stable for repeated ids (one per member or key).
void sort_verdicts(std::vector<Verdict>& verdicts);
bool has_blocker(const std::vector<Verdict>& verdicts);
const char* severity_name(Severity s);

nlohmann::ordered_json to_json(const Verdict& v);
nlohmann::ordered_json to_json(const std::vector<Verdict>& vs);

}  // namespace migrate
