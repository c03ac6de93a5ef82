// `etcd-migrate adopt`: flags -> migrate::AdoptRequest -> plan -> renderer.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/command.h"

namespace tools {

void setup_adopt_command(CLI::App& sub, cli::Action& action, cli::Program& program);

}  // namespace tools
