// Shared flags anywhere on the line (docs/rules.md#shared-flags): kubectl
// hands a plugin `-n prod health` when the user typed `kubectl etcd -n prod
// health`, and etcdctl users write `--endpoints URL member list`. Each
// command still defines its shared flags itself (one function per flag set);
// before CLI11 parses, the shared flags written in front of a command are
// moved to just after its name, so they keep one definition and one meaning
// whichever side of the command they stand on.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cli {

// The --help group (and man page heading) of every shared flag; it is also
// how the moving step recognises one.
inline constexpr const char* kSharedGroup = "Shared flags (before or after the command)";

// Whether the option takes a value ("-n prod"), not a plain switch.
bool takes_value(const CLI::Option* o);

// The direct subcommand of `app` named `name`, hidden ones too; nullptr when none.
const CLI::App* find_subcommand(const CLI::App& app, const std::string& name);

// A shared flag named `name` ("-n", "--namespace") on `app` or a command
// below it; every command defines a shared flag with the same function, so
// any one of them tells what the flag takes.
const CLI::Option* find_shared_flag(const CLI::App& app, const std::string& name);

// The shared flags of the commands below `app`, one per long name, in tree
// order (what completion offers before a command name).
std::vector<const CLI::Option*> shared_flags_below(const CLI::App& app);

// The index of the first word that is neither a shared flag of `table` nor
// that flag's value: where the command name stands (words.size() when only
// shared flags were given). `table` is an App holding just the shared flags.
std::size_t command_position(const CLI::App& table, const std::vector<std::string>& words);

// `words` (after the program name) with every shared flag that stands before
// the deepest command it reaches moved, with its value, to just after that
// command's name, in the order written. Whether a word is a flag's value is
// read from the flags of the command tree below the word; a word the tree
// does not know stops the walk and leaves the rest for CLI11 to report.
std::vector<std::string> hoist_shared_flags(const CLI::App& root, const std::vector<std::string>& words);

}  // namespace cli
