#include "cli/hidden_cmds.h"

#include <memory>

#include "base/output_path.h"
#include "cli/completion.h"
#include "cli/completion_values.h"
#include "cli/manpage.h"
#include "cli/version.h"

namespace cli {

void add_hidden_commands(CLI::App& app, Action& action, Program& program) {
  auto dir = std::make_shared<std::string>();
  auto* man = app.add_subcommand("__man", "Write the man pages into DIR");
  man->group("");
  man->add_option("dir", *dir, "Output directory")->required();
  man->callback([&app, &action, &program, dir] {
    action = [&app, &program, dir] {
      std::string source = std::string(kProjectName) + " " + kVersion;
      std::string display = program.binary == "kubectl-etcd" ? "kubectl etcd" : program.binary;
      // Through PAGE.part and a rename, as every file written where the user
      // said: only a regular file is replaced, and what is not one stops the
      // run before any page is written (docs/rules.md#files-the-user-names).
      const auto pages = man_pages(app, program.binary, display, source);
      const std::string hint = "give another directory";
      for (const auto& page : pages) {
        if (auto ok = base::check_output_file(*dir + "/" + page.file, hint); !ok) {
          program.diag->error(ok.error());
          return base::exit_code(ok.error().kind);
        }
      }
      for (const auto& page : pages) {
        auto written = base::write_file_atomically(*dir + "/" + page.file, page.text, 0644, hint);
        if (!written) {
          auto e = std::move(written).error();
          if (e.kind == base::ErrorKind::Failed) e.hint = "check that the directory exists and is writable";
          program.diag->error(e);
          return base::exit_code(e.kind);
        }
      }
      return 0;
    };
  });

  auto shell = std::make_shared<std::string>();
  auto* script = app.add_subcommand("__completion", "Print the completion script of SHELL");
  script->group("");
  script->add_option("shell", *shell, "bash, zsh, fish or kubectl")->required();
  script->callback([&action, &program, shell] {
    action = [&program, shell] {
      auto text = completion_script(*shell, program.binary);
      if (!text) {
        program.diag->error(base::make_error(base::ErrorKind::Usage, "no completion script for \"" + *shell + "\"", {},
                                       "use bash, zsh or fish (kubectl for a kubectl plugin)"));
        return base::exit_code(base::ErrorKind::Usage);
      }
      *program.out << *text;
      program.out->flush();
      return 0;
    };
  });

  // The exit-code table as the code has it, "CODE KIND" per line: the
  // bad-input test checks README.md and docs/exit-codes.md against it.
  auto* codes = app.add_subcommand("__exit-codes", "Print the exit-code table: CODE KIND per line");
  codes->group("");
  codes->callback([&action, &program] {
    action = [&program] {
      for (auto kind : base::kErrorKinds) *program.out << base::exit_code(kind) << ' ' << base::kind_name(kind) << '\n';
      program.out->flush();
      return 0;
    };
  });

  // Every word after __complete is the command line being completed, flags
  // included, so this command parses nothing itself.
  auto* comp = app.add_subcommand("__complete", "Print the completions of WORDS (the last is the current word)");
  comp->group("");
  comp->set_help_flag();
  comp->prefix_command();
  comp->allow_extras();
  comp->callback([&app, &action, &program, comp] {
    auto words = comp->remaining();
    action = [&app, &program, words] {
      Completion c = complete(app, program.binary, words);
      auto candidates = c.candidates;
      if (c.lookup != ValueKind::None && c.lookup != ValueKind::File && c.lookup != ValueKind::Directory) {
        // A failed lookup offers nothing: the shell must not print errors.
        if (auto found = lookup_values(c.lookup, c.scope, c.prefix)) {
          for (auto& f : *found) candidates.push_back({c.insert_prefix + f.value, f.description});
        }
      }
      *program.out << format_candidates(candidates, c.lookup);
      program.out->flush();
      return 0;
    };
  });
}

}  // namespace cli
