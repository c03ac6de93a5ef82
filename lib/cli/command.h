// The command table both programs are built from (ninja's subtool table in
// CLI11 form): each entry binds its flags into an options value and leaves
// behind what to run once parsing succeeded. main() only registers and parses.
#pragma once

#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/diag.h"
#include "output/format.h"
#include "output/render.h"

namespace cli {

struct Program {
  std::string binary;   // the file name, e.g. "kubectl-etcd"
  std::string display;  // what users type, e.g. "kubectl etcd"
  std::ostream* out;    // results
  Diag* diag;           // everything else
};

// Set by the selected subcommand's callback; run after a successful parse.
using Action = std::function<int()>;

struct CommandSpec {
  const char* name;
  const char* description;
  void (*setup)(CLI::App& sub, Action& action, Program& program);
};

// `selected` is the first argument: when it names a command, only that one
// gets its flags (the others keep their name and description for --help),
// since building every command's flags was the largest part of a short
// command's own CPU time (bench/startup.sh). Otherwise every command is set up.
void register_commands(CLI::App& app, std::span<const CommandSpec> commands, Action& action,
                       Program& program, std::string_view selected = {});

// Adds -o/--output with the allowed formats checked by the parser (a bad value
// is a usage error, 128).
void add_output_flag(CLI::App& sub, std::string& value, bool accept_text = false);

// Renders a result to the program's stdout; returns 0.
int print_result(Program& program, const nlohmann::ordered_json& doc, const output::View& view,
                 const std::string& format, bool accept_text = false);

// The shared `version` subcommand.
void setup_version_command(CLI::App& sub, Action& action, Program& program);

}  // namespace cli
