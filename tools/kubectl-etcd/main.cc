// kubectl-etcd: administration of etcd clusters run by the etcd operator.
// main() only registers the command table and parses; the logic lives in lib/.
#include <array>
#include <iostream>
#include <string>
#include <vector>

#include "cli/app.h"
#include "cli/command.h"
#include "cli/hidden_cmds.h"
#include "cli/shared_flags.h"
#include "cli/version_cmd.h"
#include "commands.h"
#include "flags.h"

namespace {

using namespace kubectl_etcd;

constexpr std::array kCommands = {
    cli::CommandSpec{"health", "Check each member: reachable, reads, leader, alarms; plus `check`", setup_health},
    cli::CommandSpec{"check", "Consistency findings between etcd and the operator's objects", setup_check},
    cli::CommandSpec{"hashkv", "Compare every member's HashKV at one shared revision", setup_hashkv},
    cli::CommandSpec{"status", "Cluster summary and each member's Status", setup_status},
    cli::CommandSpec{"member", "Member commands: list, add, promote, remove, replace, roll, unwedge", setup_member},
    cli::CommandSpec{"members", "Alias of `member list` (Go plugin)", setup_members},
    cli::CommandSpec{"certs", "The cluster's certificates: names, expiry, chain, and whether new members are covered",
                     setup_certs},
    cli::CommandSpec{"report", "A support bundle (.tar.gz) of the cluster's objects and health, without Secret values",
                     setup_report},
    cli::CommandSpec{"snapshot", "Save, verify and list snapshots", setup_snapshot},
    cli::CommandSpec{"restore", "Create a new EtcdCluster restored from a snapshot (S3 object or PVC file)",
                     setup_restore},
    cli::CommandSpec{"defrag", "Defragment one member, or the cluster safely", setup_defrag},
    cli::CommandSpec{"compact", "Compact the key history", setup_compact},
    cli::CommandSpec{"alarm", "List or disarm alarms", setup_alarm},
    cli::CommandSpec{"move-leader", "Hand leadership to another voter", setup_move_leader},
    cli::CommandSpec{"forfeit-leadership", "Alias (Go plugin): move-leader away from -p if it leads",
                     setup_forfeit_leadership},
    cli::CommandSpec{"remove-member", "Alias (Go plugin): `member remove` of a hex member ID", setup_remove_member},
    cli::CommandSpec{"leave", "Alias (Go plugin): `member remove` of the member of -p", setup_leave},
    cli::CommandSpec{"add-member", "Refused (Go plugin): use `member add`", setup_add_member},
    cli::CommandSpec{"version", "Print the version of kubectl-etcd", cli::setup_version_command},
};

// The command name, behind any shared flags written before it.
std::string selected_command(int argc, char** argv) {
  std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
  CLI::App table;
  CommonFlags unused;
  add_common_flags(table, unused);
  auto at = cli::command_position(table, words);
  return at < words.size() ? words[at] : std::string();
}

}  // namespace

int main(int argc, char** argv) {
  cli::init_process();
  cli::Diag diag = cli::Diag::for_stderr();
  cli::Program program{"kubectl-etcd", cli::display_name(argc > 0 ? argv[0] : "kubectl-etcd"),
                       &std::cout, &diag};

  CLI::App app{"Inspect and administer etcd clusters run by the etcd operator "
               "(etcd-operator.cozystack.io/v1alpha2).",
               program.display};
  app.set_version_flag("--version", cli::version_line(program.binary));
  app.require_subcommand(1);
  app.footer("Exit codes: 0 ok, 1 failed or unhealthy, 2 cannot connect, 3 refused, 4 timed out,\n"
             "5 partial, 6 not found, 7 permission denied, 8 members' data differ, 128 usage error,\n"
             "130/143 interrupted.");

  cli::Action action;
  cli::register_commands(app, kCommands, action, program, selected_command(argc, argv));
  cli::add_hidden_commands(app, action, program);
  if (auto rc = cli::parse_args(app, argc, argv, std::cout, diag)) return *rc;
  return action ? cli::run_guarded(diag, action) : 0;
}
