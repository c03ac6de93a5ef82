#include "verify.h"

#include <memory>

#include "admin/target.h"
#include "cli/kube_flags.h"
#include "migrate/verify.h"
#include "output/render.h"

namespace tools {

namespace {

struct VerifyFlags {
  kube::ConnectOptions kube;
  std::string name;
  std::string output = "table";
  std::string connect = "auto";
};

int run_verify(cli::Program& program, const VerifyFlags& flags) {
  cli::Diag& diag = *program.diag;
  diag.set_quiet(flags.kube.quiet);
  auto fail = [&](const base::Error& e) {
    diag.error(e);
    return base::exit_code(e.kind);
  };
  auto format = output::parse_format(flags.output, true);
  if (!format) return fail(format.error());
  auto mode = admin::parse_connect(flags.connect, admin::process_env());
  if (!mode) return fail(mode.error());
  auto client = cli::connect_kube(flags.kube, diag);
  if (!client) return fail(client.error());
  migrate::VerifyRequest request{flags.kube.ns, flags.name,
                                 *mode == admin::ConnectMode::PortForward ? "port-forward" : "direct"};
  auto report = migrate::verify_adoption(**client, request);
  if (!report) return fail(report.error());
  bool text = *format == output::Format::Table || *format == output::Format::Wide;
  *program.out << (text ? migrate::verify_text(*report) : output::render(migrate::to_json(*report), output::View{}, *format));
  program.out->flush();
  return migrate::verify_exit_code(*report);
}

}  // namespace

void setup_verify_command(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto flags = std::make_shared<VerifyFlags>();
  cli::add_kube_flags(sub, flags->kube, "Only this namespace (default: every namespace)");
  cli::add_output_flag(sub, flags->output, true);
  cli::add_connect_flag(sub, flags->connect);
  sub.add_option("name", flags->name, "The adopted cluster (default: every adopted cluster in scope)");
  sub.footer("Exit 0 when every check holds, 1 when one does not, 8 when the members' data differ (HASHKV),\n"
             "6 when nothing adopted matches.");
  sub.callback([&action, &program, flags] {
    action = [&program, flags] { return run_verify(program, *flags); };
  });
}

}  // namespace tools
