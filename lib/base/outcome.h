// The exit code of one run over several targets (clusters, members), per
// docs/exit-codes.md: 0 all succeeded; 5 some succeeded and some did not; 3 all
// refused or blocked; else 1. An interrupt wins over everything.
#pragma once

#include <vector>

namespace base {

enum class Outcome { Succeeded, Blocked, Failed };

int aggregate_exit_code(const std::vector<Outcome>& outcomes, int interrupt_code = 0);

}  // namespace base
