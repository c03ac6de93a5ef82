// Shell completion from the CLI11 command tree: what may follow the words
// typed so far (subcommands, flags, fixed flag values), and which live
// objects (contexts, clusters, members...) a flag or argument names, to be
// looked up by completion_values. The shell scripts only ask the program
// (`PROGRAM __complete WORDS...`), so they cannot drift from --help.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cli {

// What a flag's or argument's value names, when it is a live object.
enum class ValueKind { None, File, Directory, Context, Namespace, Cluster, Member, Pod, Snapshot };

struct Candidate {
  std::string value;
  std::string description;
};

// What the words typed so far say about the live lookup (flags given earlier
// on the line, as kubectl's completion honours them).
struct CompletionScope {
  std::string kubeconfig, context, ns, cluster;
};

struct Completion {
  std::vector<Candidate> candidates;  // already filtered by the typed prefix
  ValueKind lookup = ValueKind::None; // a live lookup still to add (filtered by `prefix`)
  std::string prefix;                 // the typed part of the value to look up
  std::string insert_prefix;          // put before looked-up values ("--cluster=")
  CompletionScope scope;
};

// `binary` selects the table of value kinds; `words` are the words after the
// program name, the last being the (possibly empty) word under the cursor.
Completion complete(const CLI::App& root, const std::string& binary, const std::vector<std::string>& words);

// The kind of value of a flag (by long name, "--cluster") or a positional
// argument ("verify name") of a program.
ValueKind value_kind(const std::string& binary, const std::string& command_path, const std::string& name);

// The completion script of `shell` (bash, zsh, fish; and for a kubectl
// plugin "kubectl": the kubectl_complete-<plugin> executable kubectl runs)
// for `binary`; nullopt for another shell.
std::optional<std::string> completion_script(const std::string& shell, const std::string& binary);

// One line per candidate: "VALUE\tDESCRIPTION"; a lone ":files" or ":dirs"
// line asks the shell for its own file-name completion.
std::string format_candidates(const std::vector<Candidate>& candidates, ValueKind kind);

}  // namespace cli
