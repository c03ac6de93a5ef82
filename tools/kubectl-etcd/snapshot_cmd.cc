// snapshot save|status|list, and the Go plugin's `snapshot <path>`.
#include "admin/snapshot.h"
#include "base/duration.h"
#include "cli/progress.h"
#include "commands.h"
#include "flags.h"

namespace kubectl_etcd {

namespace {

struct SaveOpts {
  CommonFlags common;
  std::string path, member;
  bool overwrite = false, via_cr = false;
  admin::SnapshotCrRequest cr;
  std::string timeout = "30m";
  std::string stall_timeout = "30s";
};

int run_via_cr(cli::Program& program, const SaveOpts& o) {
  if (!o.path.empty()) {
    return fail(program, base::make_error(base::ErrorKind::Usage, "--via-cr takes no file path", {},
                                         "the destination is --pvc or --s3-*"));
  }
  auto timeout = base::parse_duration(o.timeout);
  if (!timeout) return fail(program, timeout.error());
  auto ctx = open(o.common, program);
  if (!ctx) return fail(program, ctx.error());
  if (!ctx->kube) return fail(program, base::make_error(base::ErrorKind::Usage, "--via-cr needs a cluster (-c)"));
  admin::SnapshotCrRequest r = o.cr;
  r.timeout = *timeout;
  cli::Diag& diag = *program.diag;
  auto row = admin::snapshot_via_cr(*ctx->kube, ctx->session.target, r,
                                    [&diag](const std::string& line) { diag.note(line); });
  if (!row) return fail(program, row.error());
  return print(program, output::render(*row, admin::snapshot_cr_view(), ctx->format), 0);
}

int run_save(cli::Program& program, const SaveOpts& o) {
  if (o.via_cr) return run_via_cr(program, o);
  if (o.path.empty()) return fail(program, base::make_error(base::ErrorKind::Usage, "a file path is required"));
  admin::SnapshotSaveRequest r;
  r.path = o.path;
  r.member = !o.member.empty() ? o.member : o.common.pod;
  r.overwrite = o.overwrite;
  auto stall = base::parse_duration(o.stall_timeout);
  if (!stall) return fail(program, stall.error());
  r.stall_timeout = *stall;
  // A path that cannot be written is said before any connection.
  if (auto st = admin::check_snapshot_target(r); !st) return fail(program, st.error());
  auto ctx = open(o.common, program);
  if (!ctx) return fail(program, ctx.error());
  cli::Progress progress(program.diag->stream(), cli::Progress::stderr_is_terminal(), o.common.kube.quiet);
  auto rep = admin::snapshot_save(ctx->session, r, [&progress](std::uint64_t done, std::uint64_t total) {
    std::string text = "snapshot: " + output::human_bytes(static_cast<double>(done));
    if (total > 0) {
      text += " of " + output::human_bytes(static_cast<double>(total)) + " (" +
              std::to_string(done * 100 / total) + "%)";
    }
    progress.update(text);
  });
  progress.finish();
  if (!rep) return fail(program, rep.error());
  return print(program, output::render(admin::snapshot_save_document(*rep), admin::snapshot_save_view(), ctx->format), 0);
}

void add_save_flags(CLI::App& sub, SaveOpts& o) {
  add_common_flags(sub, o.common);
  sub.add_option("--member", o.member, "Take it from this member (default: a healthy follower)");
  sub.add_flag("--overwrite", o.overwrite, "Replace an existing regular file (never a device, FIFO, socket, directory or link)");
  sub.add_option("--stall-timeout", o.stall_timeout, "Give up when no data arrived for this long (no total timeout)")
      ->default_str("30s");
  sub.add_flag("--via-cr", o.via_cr, "Through an EtcdSnapshot the operator runs (needs a destination)");
  sub.add_option("--name", o.cr.name, "--via-cr: the EtcdSnapshot's name (default <cluster>-<UTC yyyymmdd-hhmmss>)");
  sub.add_option("--pvc", o.cr.pvc, "--via-cr: store on this PVC");
  sub.add_option("--sub-path", o.cr.sub_path, "--via-cr: directory inside the PVC");
  sub.add_option("--s3-endpoint", o.cr.s3_endpoint, "--via-cr: S3 endpoint URL");
  sub.add_option("--s3-bucket", o.cr.s3_bucket, "--via-cr: S3 bucket");
  sub.add_option("--s3-key", o.cr.s3_key, "--via-cr: key prefix in the bucket");
  sub.add_option("--s3-secret", o.cr.s3_secret, "--via-cr: Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  sub.add_option("--s3-region", o.cr.s3_region, "--via-cr: S3 region");
  sub.add_flag("--s3-force-path-style", o.cr.s3_force_path_style, "--via-cr: path-style S3 URLs");
  sub.add_option("--timeout", o.timeout,
                 "--via-cr: how long to wait for Complete or Failed (no status within 1m, or this when shorter: "
                 "refused, the EtcdSnapshot deleted)")
      ->default_str("30m");
}

}  // namespace

void setup_snapshot(CLI::App& sub, cli::Action& action, cli::Program& program) {
  // `snapshot <path>` (the Go plugin's form) is `snapshot save <path>`.
  auto alias = options<SaveOpts>();
  add_save_flags(sub, *alias);
  sub.add_option("path", alias->path, "Go plugin form: the same as `snapshot save PATH`");
  sub.require_subcommand(0, 1);

  auto save = options<SaveOpts>();
  auto& s = *sub.add_subcommand("save", "Stream a member's snapshot to a local file, verified and atomic");
  add_save_flags(s, *save);
  s.add_option("path", save->path, "The file to write (none with --via-cr)");
  s.footer("Writes PATH.part (0600), checks the sha256 trailer, fsyncs, renames. Prints PATH SIZE SHA256 MEMBER "
           "REVISION.\nPATH must name a regular file or nothing yet: a device, FIFO, socket, directory or symbolic link\n"
           "there (a link whatever it points at) is refused (128) before anything is read; an existing file\n"
           "without --overwrite is refused (3).");
  s.callback([&action, &program, save] { action = [&program, save] { return run_save(program, *save); }; });

  struct StatusOpts {
    CommonFlags common;
    std::string name, file;
  };
  auto st = options<StatusOpts>();
  auto& status = *sub.add_subcommand("status", "An EtcdSnapshot's phase and artifact, or --file: verify a local file");
  cli::add_kube_flags(status, st->common.kube, "Namespace of the EtcdSnapshot (default: the context's)");
  cli::add_output_flag(status, st->common.output);
  status.add_option("name", st->name, "The EtcdSnapshot");
  status.add_option("--file", st->file, "Verify this local snapshot file (size and sha256 trailer)");
  status.footer("--file exits 1 when the file is not a complete snapshot.");
  status.callback([&action, &program, st] {
    action = [&program, st] {
      auto format = output::parse_format(st->common.output);
      if (!format) return fail(program, format.error());
      if (!st->file.empty() == !st->name.empty()) {
        return fail(program, base::make_error(base::ErrorKind::Usage, "give an EtcdSnapshot name or --file, not both"));
      }
      if (!st->file.empty()) {
        auto rep = admin::verify_snapshot_file(st->file);
        if (rep.cannot_open) return fail(program, *rep.cannot_open);
        return print(program, output::render(admin::snapshot_file_document(rep), admin::snapshot_file_view(), *format),
                     rep.valid ? 0 : 1);
      }
      auto k = open_kube(st->common, program);
      if (!k) return fail(program, k.error());
      auto row = admin::snapshot_get(*k->kube, k->ns, st->name);
      if (!row) return fail(program, row.error());
      return print(program, output::render(*row, admin::snapshot_cr_view(), *format), 0);
    };
  });

  struct ListOpts {
    CommonFlags common;
  };
  auto ls = options<ListOpts>();
  auto& list = *sub.add_subcommand("list", "The EtcdSnapshots of a namespace (of one cluster with -c)");
  cli::add_kube_flags(list, ls->common.kube, "Namespace of the EtcdSnapshots (default: the context's)");
  cli::add_output_flag(list, ls->common.output);
  add_cluster_flag(list, ls->common.cluster, "Only the snapshots of this EtcdCluster");
  list.callback([&action, &program, ls] {
    action = [&program, ls] {
      auto format = output::parse_format(ls->common.output);
      if (!format) return fail(program, format.error());
      auto k = open_kube(ls->common, program);
      if (!k) return fail(program, k.error());
      auto rows = admin::snapshot_list(*k->kube, k->ns, ls->common.cluster);
      if (!rows) return fail(program, rows.error());
      return print(program, output::render(*rows, admin::snapshot_cr_view(), *format), 0);
    };
  });

  sub.callback([&action, &program, &sub, alias] {
    if (!sub.get_subcommands().empty()) return;
    action = [&program, alias] {
      if (alias->path.empty()) {
        return fail(program, base::make_error(base::ErrorKind::Usage, "snapshot needs save, status, list or a path"));
      }
      return run_save(program, *alias);
    };
  });
}

}  // namespace kubectl_etcd
