#include "base/outcome.h"

#include <algorithm>

namespace base {

int aggregate_exit_code(const std::vector<Outcome>& outcomes, int interrupt_code) {
  if (interrupt_code != 0) return interrupt_code;
  auto count = [&](Outcome o) { return std::count(outcomes.begin(), outcomes.end(), o); };
  auto ok = count(Outcome::Succeeded);
  auto blocked = count(Outcome::Blocked);
  auto failed = count(Outcome::Failed);
  if (blocked == 0 && failed == 0) return 0;
  if (ok > 0) return 5;
  if (failed == 0) return 3;
  return 1;
}

}  // namespace base
