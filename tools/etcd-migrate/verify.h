// `etcd-migrate verify [-n NS] [NAME]`: flags -> migrate::verify_adoption -> renderer.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/command.h"

namespace tools {

void setup_verify_command(CLI::App& sub, cli::Action& action, cli::Program& program);

}  // namespace tools
