// restore (docs/restore.md): plan, --dry-run prints it, else run it.
#include "admin/restore_check.h"
#include "admin/restore_exec.h"
#include "admin/restore_plan.h"
#include "cli/progress.h"
#include "commands.h"
#include "flags.h"

namespace kubectl_etcd {

namespace {

struct RestoreOpts {
  CommonFlags common;
  admin::RestoreRequest request;
  bool dry_run = false;
};

int run_restore(cli::Program& program, RestoreOpts& o) {
  program.diag->set_quiet(o.common.kube.quiet);
  auto format = output::parse_format(o.common.output);
  if (!format) return fail(program, format.error());
  auto k = open_kube(o.common, program);
  if (!k) return fail(program, k.error());
  admin::RestoreRequest r = o.request;
  r.ns = k->ns;
  auto plan = admin::plan_restore(r);
  if (!plan) return fail(program, plan.error());
  if (o.dry_run) {
    // Every read-only check of the run, so a dry-run fails where it would
    // (docs/rules.md#dry-run-checks-what-the-run-checks).
    auto check = admin::check_restore(*k->kube, *plan);
    if (!check) return fail(program, check.error());
    output::View view;
    view.text = [&plan, &check](const nlohmann::ordered_json&) { return admin::restore_check_text(*plan, *check); };
    const bool refused = plan->refused() || check->refused();
    int rc = print(program, output::render(admin::restore_check_document(*plan, *check), view, *format), refused ? 3 : 0);
    if (refused) program.diag->error(admin::restore_refusal(*plan, *check));
    return rc;
  }
  cli::Progress progress(program.diag->stream(), cli::Progress::stderr_is_terminal(), o.common.kube.quiet);
  admin::RestoreHooks hooks;
  hooks.step_done = [&progress](const admin::RestoreStepResult& s) {
    progress.line("step " + std::string(admin::restore_step_name(s.step)) + ": " + s.outcome + (s.detail.empty() ? "" : " (" + s.detail + ")"));
  };
  hooks.upload_progress = [&progress](std::uint64_t done, std::uint64_t total) {
    progress.update("upload: " + output::human_bytes(static_cast<double>(done)) + " of " +
                    output::human_bytes(static_cast<double>(total)));
  };
  auto report = admin::execute_restore(*k->kube, *plan, hooks);
  progress.finish();
  if (!report) return fail(program, report.error());
  output::View done;
  done.text = [](const nlohmann::ordered_json& d) {
    std::string out = "restore " + d["namespace"].get<std::string>() + "/" + d["cluster"].get<std::string>() +
                      " from " + d["source"].get<std::string>() + ": created\n";
    for (const auto& s : d["steps"]) {
      out += "  " + s["step"].get<std::string>() + ": " + s["outcome"].get<std::string>();
      if (!s["detail"].get<std::string>().empty()) out += " (" + s["detail"].get<std::string>() + ")";
      out += "\n";
    }
    return out;
  };
  return print(program, output::render(admin::restore_report_document(*plan, *report), done, *format), 0);
}

}  // namespace

void setup_restore(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto o = options<RestoreOpts>();
  admin::RestoreRequest& r = o->request;
  cli::add_kube_flags(sub, o->common.kube, "Namespace of the new cluster (default: the context's)");
  cli::add_output_flag(sub, o->common.output);
  sub.add_option("name", r.name, "The new EtcdCluster")->required();
  sub.add_option("--version", r.version, "etcd version X.Y.Z of the new cluster (3.5 or later)")->required();
  sub.add_option("--replicas", r.replicas, "Members of the new cluster")->default_str("3");
  sub.add_option("--storage-size", r.storage_size, "spec.storage.size of each member (default: the operator's)");
  sub.add_option("--file", r.file, "A snapshot file from `snapshot save`: checked, then uploaded to the S3 source");
  sub.add_option("--s3-endpoint", r.s3_endpoint, "S3 endpoint URL of the source");
  sub.add_option("--s3-bucket", r.s3_bucket, "S3 bucket of the source");
  sub.add_option("--s3-key", r.s3_key, "The exact object key (with --file default <name>-restore.db)");
  sub.add_option("--s3-secret", r.s3_secret,
                 "Secret in the namespace with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (read by the operator too)");
  sub.add_option("--s3-region", r.s3_region, "S3 region");
  sub.add_flag("--s3-force-path-style", r.s3_force_path_style, "Path-style S3 URLs (MinIO, Ceph, IP endpoints)");
  sub.add_option("--pvc", r.pvc, "An existing PVC in the namespace that holds the snapshot file");
  sub.add_option("--pvc-path", r.pvc_path, "The exact snapshot file inside that PVC");
  sub.add_flag("--dry-run", o->dry_run,
               "Make every check of the run (file, Secret, S3 object or PVC, name, server-side dry-run), print the "
               "plan and the EtcdCluster, change nothing; fails as the run would (exit 3 when refused)");
  sub.footer("Sources: an S3 object (with --file: the file is checked and uploaded first; a re-run keeps the\n"
             "upload), or a file already on an existing PVC (restore does not copy files into PVCs). Then a\n"
             "server-side dry-run and the create of the EtcdCluster with spec.bootstrap.restore; the operator's\n"
             "first member restores the snapshot in an init container. A re-run finishes a stopped restore.\n"
             "A snapshot file with auth enabled is refused: the new cluster would need spec.auth and TLS.\n"
             "Exit 1 the file is not a complete snapshot, 3 refused (the name is taken, another object is\n"
             "under the key, auth enabled), 6 the file, Secret, PVC or object does not exist.");
  sub.callback([&action, &program, o] { action = [&program, o] { return run_restore(program, *o); }; });
}

}  // namespace kubectl_etcd
