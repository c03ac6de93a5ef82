// report: a support bundle for a bug report (docs/support-bundle.md).
#include <chrono>

#include "admin/support_bundle.h"
#include "cli/version_cmd.h"
#include "commands.h"
#include "flags.h"
#include "output/archive.h"

namespace kubectl_etcd {

namespace {

struct ReportFlags {
  CommonFlags common;
  std::string file;
  std::string dir;
};

}  // namespace

void setup_report(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<ReportFlags>();
  add_common_flags(sub, f->common, false);
  auto* file = sub.add_option("-f,--file", f->file, "The archive to write (default ./<top folder>.tar.gz)");
  sub.add_option("--dir", f->dir, "Write a directory instead of a .tar.gz")->excludes(file);
  sub.footer("Gathers the EtcdCluster, EtcdMembers, Pods, PVCs, Services, PDB, the namespace's events, the\n"
             "operator's Deployment and Lease, the legacy objects if any, the certificates, and etcd's status,\n"
             "health, member list, check and alarms as JSON into etcd-report-<ns>-<cluster>-<time>/.\n"
             "Secrets appear by name and key names only; no Secret value is written (docs/support-bundle.md).\n"
             "Progress on stderr; the path written on stdout. Exit 0 complete, 5 partial (the bundle is written\n"
             "and its summary.json lists what failed), 6 no such EtcdCluster, 3 the file or directory exists,\n"
             "128 a device, FIFO, socket or symbolic link is at the path (never written through or replaced).");
  sub.callback([&action, &program, f] {
    action = [&program, f] {
      if (f->common.cluster.empty()) {
        return fail(program, base::make_error(base::ErrorKind::Usage, "report needs a cluster", {}, "pass -c NAME"));
      }
      // A taken name is known before minutes of collecting, not after.
      if (!f->dir.empty() || !f->file.empty()) {
        auto free = f->dir.empty() ? output::refuse_existing(f->file, "-f/--file", false)
                                   : output::refuse_existing(f->dir, "--dir", true);
        if (!free) return fail(program, free.error());
      }
      auto k = open_kube(f->common, program);
      if (!k) return fail(program, k.error());
      // etcd may be down: that is a bug report's usual case, recorded, not fatal.
      std::string session_error;
      auto ctx = open(f->common, program);
      if (!ctx) session_error = ctx.error().one_line();
      admin::BundleRequest r;
      r.ns = k->ns;
      r.cluster = f->common.cluster;
      r.operator_deployment = f->common.operator_deployment;
      r.now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
      r.tool_version = cli::version_line(program.binary);
      auto bundle = admin::collect_bundle(*k->kube, ctx ? &ctx->session : nullptr, session_error, r,
                                          [&program](const std::string& s) { program.diag->note(s); });
      if (!bundle) return fail(program, bundle.error());
      for (const auto& e : bundle->errors) program.diag->warning(e);
      std::string path;
      base::Status written;
      if (!f->dir.empty()) {
        path = f->dir;
        written = output::write_directory(path, bundle->files);
      } else {
        path = f->file.empty() ? bundle->root + ".tar.gz" : f->file;
        written = output::write_tar_gz(path, bundle->files, bundle->root, r.now);
      }
      if (!written) return fail(program, written.error());
      return print(program, path + "\n", admin::bundle_exit_code(*bundle));
    };
  });
}

}  // namespace kubectl_etcd
