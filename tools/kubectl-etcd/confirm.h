// The confirmation every mutating command shares (docs/rules.md#confirmation): on
// a terminal the plan is shown and a yes is asked for; without a terminal
// the command refuses unless --yes was given.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"

namespace kubectl_etcd {

// nullopt: go on. Otherwise the exit code (3), the reason already printed.
std::optional<int> confirm_plan(cli::Program& program, bool yes, const std::string& plan_text);

}  // namespace kubectl_etcd
