#include "confirm.h"

#include <unistd.h>

#include <iostream>

#include "flags.h"

namespace kubectl_etcd {

std::optional<int> confirm_plan(cli::Program& program, bool yes, const std::string& plan_text) {
  if (yes) {
    program.diag->note(plan_text.substr(0, plan_text.find('\n')));
    return std::nullopt;
  }
  std::cerr << plan_text;
  if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
    return fail(program, base::make_error(base::ErrorKind::Refused, "no terminal to confirm the plan on", {},
                                         "review it with --dry-run, then pass --yes"));
  }
  std::cerr << "Proceed? [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer) || !(answer == "y" || answer == "Y" || answer == "yes")) {
    return fail(program, base::make_error(base::ErrorKind::Refused, "not confirmed"));
  }
  return std::nullopt;
}

}  // namespace kubectl_etcd
