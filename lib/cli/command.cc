#include "cli/command.h"

#include "cli/shared_flags.h"
#include "cli/version_cmd.h"

namespace cli {

void register_commands(CLI::App& app, std::span<const CommandSpec> commands, Action& action,
                       Program& program, std::string_view selected) {
  bool known = false;
  for (const auto& c : commands) known = known || selected == c.name;
  for (const auto& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    if (!known || selected == c.name) c.setup(*sub, action, program);
  }
}

void add_output_flag(CLI::App& sub, std::string& value, bool accept_text) {
  std::vector<std::string> allowed = {"table", "wide", "json", "yaml"};
  if (accept_text) allowed.push_back("text");
  sub.add_option("-o,--output", value, "Output format: " + CLI::detail::join(allowed, "|"))
      ->check(CLI::IsMember(allowed))
      ->default_str("table")
      ->group(kSharedGroup);
}

int print_result(Program& program, const nlohmann::ordered_json& doc, const output::View& view,
                 const std::string& format, bool accept_text) {
  auto f = output::parse_format(format, accept_text);
  if (!f) {
    program.diag->error(f.error());
    return base::exit_code(f.error().kind);
  }
  *program.out << output::render(doc, view, *f);
  program.out->flush();
  return 0;
}

void setup_version_command(CLI::App& sub, Action& action, Program& program) {
  auto format = std::make_shared<std::string>("table");
  add_output_flag(sub, *format, program.binary == "etcd-migrate");
  sub.callback([&action, &program, format] {
    action = [&program, format] {
      return print_result(program, version_document(program.binary), version_view(), *format, true);
    };
  });
}

}  // namespace cli
