// The commands that are for the build and the shell, not for people, and so
// are not in --help: `__man DIR` writes the man pages, `__completion SHELL`
// prints a completion script, `__complete WORDS...` answers one completion,
// `__exit-codes` prints the exit-code table.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/command.h"

namespace cli {

// Call after every visible command is registered: they all read `app`.
void add_hidden_commands(CLI::App& app, Action& action, Program& program);

}  // namespace cli
