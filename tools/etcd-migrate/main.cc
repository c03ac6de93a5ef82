// etcd-migrate: in-place adoption of legacy etcd.aenix.io/v1alpha1 clusters by
// the etcd operator. main() only registers the command table and parses.
#include <array>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/hidden_cmds.h"
#include "cli/kube_flags.h"
#include "cli/shared_flags.h"
#include "cli/version_cmd.h"

#include "adopt.h"
#include "verify.h"

namespace {

constexpr std::array kCommands = {
    cli::CommandSpec{"adopt", "Plan (and with --apply, run) the in-place adoption of legacy clusters",
                     tools::setup_adopt_command},
    cli::CommandSpec{"verify", "Prove that adopted clusters are unchanged and as the operator expects them",
                     tools::setup_verify_command},
    cli::CommandSpec{"version", "Print the version of etcd-migrate", cli::setup_version_command},
};

// Where the command name stands, behind any shared flags written before it.
size_t command_position(const std::vector<char*>& args) {
  std::vector<std::string> words(args.begin() + 1, args.end());
  CLI::App table;
  kube::ConnectOptions kube;
  std::string output, connect;
  cli::add_kube_flags(table, kube, "");
  cli::add_output_flag(table, output, true);
  cli::add_connect_flag(table, connect);
  return cli::command_position(table, words) + 1;
}

// As in the reference, a bare `etcd-migrate [flags]` means `adopt [flags]`;
// shared flags may stand before a named command (`-n prod verify`).
std::vector<char*> with_default_command(int argc, char** argv) {
  std::vector<char*> args(argv, argv + argc);
  if (args.empty()) return args;
  static char adopt[] = "adopt";
  bool help = argc > 1 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0);
  size_t at = command_position(args);
  if (!help && (at == args.size() || args[at][0] == '-')) args.insert(args.begin() + 1, adopt);
  return args;
}

}  // namespace

int main(int argc, char** argv) {
  cli::init_process();
  cli::Diag diag = cli::Diag::for_stderr();
  cli::Program program{"etcd-migrate", cli::display_name(argc > 0 ? argv[0] : "etcd-migrate"),
                       &std::cout, &diag};

  CLI::App app{"Adopt legacy etcd.aenix.io/v1alpha1 etcd clusters in place into the etcd "
               "operator (etcd-operator.cozystack.io/v1alpha2).",
               program.display};
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 failed, 2 cannot connect, 3 refused or blocked, 4 timed out,\n"
             "5 partial, 6 not found, 7 permission denied, 8 members' data differ, 128 usage error,\n"
             "130/143 interrupted.");

  cli::Action action;
  auto args = with_default_command(argc, argv);
  size_t at = args.empty() ? 0 : command_position(args);
  cli::register_commands(app, kCommands, action, program, at < args.size() ? args[at] : "");
  cli::add_hidden_commands(app, action, program);
  if (auto rc = cli::parse_args(app, static_cast<int>(args.size()), args.data(), std::cout, diag)) return *rc;
  return action ? cli::run_guarded(diag, action) : 0;
}
