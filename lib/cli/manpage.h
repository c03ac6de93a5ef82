// Man pages made from the CLI11 command tree itself, so that `man` and
// `--help` say the same thing: one page for the program and one for each
// top-level command (its subcommands are sections of that page).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cli {

struct ManPage {
  std::string file;  // "kubectl-etcd-member.1"
  std::string text;  // roff (man macros)
};

// `binary` names the pages ("kubectl-etcd"), `display` is what users type
// ("kubectl etcd"), `source` goes into .TH ("etcd-operator-cli 0.1.0").
// Hidden commands (empty group) get no page.
std::vector<ManPage> man_pages(const CLI::App& root, const std::string& binary, const std::string& display,
                               const std::string& source);

// Roff-escapes one line of text (backslashes, leading dots and quotes, '-').
std::string roff_escape(const std::string& text);

}  // namespace cli
