// One setup function per command (CLI11's subcommands-in-files): each binds
// its flags into an options value and leaves behind what to run.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/command.h"

namespace kubectl_etcd {

void setup_health(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_check(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_hashkv(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_status(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_members(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_alarm(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_compact(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_defrag(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_move_leader(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_forfeit_leadership(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_add_member(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member_add(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member_promote(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member_remove(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member_replace(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member_roll(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_member_unwedge(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_remove_member(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_leave(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_certs(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_report(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_snapshot(CLI::App& sub, cli::Action& action, cli::Program& program);
void setup_restore(CLI::App& sub, cli::Action& action, cli::Program& program);

}  // namespace kubectl_etcd
