#include "adopt.h"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli/kube_flags.h"
#include "cli/progress.h"
#include "migrate/adoption_plan.h"
#include "migrate/apply.h"
#include "migrate/plan_text.h"
#include "migrate/request.h"
#include "operator/names.h"
#include "output/render.h"

namespace tools {

namespace {

std::atomic<int> g_stop{0};

extern "C" void on_signal(int sig) { g_stop.store(sig); }

// SIGINT/SIGTERM end the run cleanly between two steps (the call in flight
// finishes); a second signal falls back to the default and ends it at once.
void install_signal_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

// docs/rules.md#confirmation: ask only on a terminal; without one, --yes is required.
int confirm(cli::Program& program, const migrate::AdoptionPlan& plan, bool yes) {
  size_t adoptable = 0;
  for (const auto& c : plan.clusters) adoptable += c.action == migrate::ClusterAction::Adopt ? 1 : 0;
  if (yes) return 0;
  if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
    program.diag->error("refusing to --apply without confirmation: no terminal to ask on; pass --yes");
    return 3;
  }
  std::cerr << "Adopt " << adoptable << " cluster(s) as planned above? Pods are never restarted. Type \"yes\": "
            << std::flush;
  std::string answer;
  std::getline(std::cin, answer);
  if (answer != "yes" && answer != "y") {
    program.diag->error("not confirmed: nothing was changed");
    return 3;
  }
  return 0;
}

int fail(cli::Program& program, const base::Error& e) {
  program.diag->error(e);
  return base::exit_code(e.kind);
}

int run_adopt(cli::Program& program, migrate::AdoptRequest request, bool all_namespaces) {
  cli::Diag& diag = *program.diag;
  diag.set_quiet(request.kube.quiet);
  if (all_namespaces && !request.kube.ns.empty()) {
    return fail(program, base::make_error(base::ErrorKind::Usage, "-A/--all-namespaces and -n/--namespace contradict each other"));
  }
  auto format = output::parse_format(request.output, true);
  if (!format) return fail(program, format.error());
  const char* service_host = std::getenv("KUBERNETES_SERVICE_HOST");
  request.in_cluster = service_host != nullptr && *service_host != '\0';
  auto valid = migrate::validate(request);
  if (!valid) return fail(program, valid.error());
  auto client = cli::connect_kube(request.kube, diag);
  if (!client) return fail(program, client.error());
  auto plan = migrate::plan_adoption(**client, request, *valid, [&diag](const std::string& line) { diag.note(line); });
  if (!plan) return fail(program, plan.error());
  if (diag.verbosity() > 0) {
    auto stats = (*client)->stats();
    diag.verbose("kubernetes API: " + std::to_string(stats.requests) + " requests over " +
                 std::to_string(stats.connections) + " connections");
  }
  bool text = *format == output::Format::Table || *format == output::Format::Wide;
  if (!request.apply || plan->nothing_to_migrate()) {
    *program.out << (text ? migrate::plan_text(*plan) : output::render(migrate::to_json(*plan), output::View{}, *format));
    program.out->flush();
    return migrate::dry_run_exit_code(*plan);
  }
  if (text) {
    *program.out << migrate::plan_text(*plan);
    program.out->flush();
  }
  if (int rc = confirm(program, *plan, request.yes); rc != 0) return rc;
  install_signal_handlers();
  migrate::ApplyHooks hooks;
  hooks.stop = &g_stop;
  // Step lines stay; a backup's byte count overprints one line on a
  // terminal (plain lines every few seconds otherwise).
  cli::Progress transfer(diag.stream(), cli::Progress::stderr_is_terminal(), request.kube.quiet);
  hooks.progress = [&diag, &transfer](const std::string& line) {
    transfer.finish();
    diag.note(line);
  };
  hooks.transfer = [&transfer](const std::string& cluster, const std::string& endpoint, std::uint64_t done,
                               std::uint64_t total) {
    std::string text = cluster + ": backup from " + endpoint + ": " + output::human_bytes(static_cast<double>(done));
    if (total > 0) {
      text += " of " + output::human_bytes(static_cast<double>(total)) + " (" + std::to_string(done * 100 / total) + "%)";
    }
    transfer.update(text);
  };
#ifdef ETCDOPCLI_TEST_SEAMS
  // A test seam for crash tests, compiled into test builds only
  // (-Dtest_seams=true): ETCD_MIGRATE_TEST_KILL_AFTER=<step> (or
  // <ns>/<name>:<step>) sends the process SIGKILL (or the signal named by
  // ETCD_MIGRATE_TEST_SIGNAL: INT, TERM) right after that step.
  if (const char* kill_after = std::getenv("ETCD_MIGRATE_TEST_KILL_AFTER"); kill_after != nullptr && *kill_after) {
    std::string target = kill_after;
    std::string name = std::getenv("ETCD_MIGRATE_TEST_SIGNAL") ? std::getenv("ETCD_MIGRATE_TEST_SIGNAL") : "KILL";
    int sig = name == "INT" ? SIGINT : name == "TERM" ? SIGTERM : SIGKILL;
    hooks.after_step = [target, sig](const std::string& cluster, const std::string& step) {
      if (target == step || target == cluster + ":" + step) std::raise(sig);
    };
  }
#endif
  migrate::ApplyReport report = migrate::apply_plan(**client, *plan, request, *valid, hooks);
  transfer.finish();
  if (text) {
    *program.out << migrate::apply_text(report);
  } else {
    nlohmann::ordered_json doc = {{"plan", migrate::to_json(*plan)}, {"result", migrate::to_json(report)}};
    *program.out << output::render(doc, output::View{}, *format);
  }
  program.out->flush();
  return migrate::apply_exit_code(report);
}

}  // namespace

void setup_adopt_command(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto request = std::make_shared<migrate::AdoptRequest>();
  auto all_namespaces = std::make_shared<bool>(false);
  request->legacy_controller = std::string(op::kDefaultLegacyController);
  request->new_controller = std::string(op::kDefaultNewController);
  migrate::AdoptRequest& r = *request;

  cli::add_kube_flags(sub, r.kube, "Only this namespace (default: every namespace)");
  sub.add_flag("-A,--all-namespaces", *all_namespaces, "Every namespace (the default without -n)");
  cli::add_output_flag(sub, r.output, true);
  sub.add_flag("--apply", r.apply, "Execute the plan (without it only the plan is printed)");
  sub.add_flag("--dry-run", r.dry_run, "Print the plan and change nothing (the default)");
  sub.add_flag("-y,--yes", r.yes, "Do not ask for confirmation before --apply");
  cli::add_connect_flag(sub, r.connect);
  sub.add_option("--concurrency", r.concurrency, "Clusters inspected and adopted at once")->default_str("4");

  auto* gate = "Controller check";
  sub.add_flag("--skip-controller-check", r.skip_controller_check, "Skip the check that both operators are down")
      ->group(gate);
  sub.add_option("--legacy-controller", r.legacy_controller, "Legacy operator Deployment, NAMESPACE/NAME")
      ->default_str(std::string(op::kDefaultLegacyController))
      ->group(gate);
  sub.add_option("--new-controller", r.new_controller, "New operator Deployment, NAMESPACE/NAME")
      ->default_str(std::string(op::kDefaultNewController))
      ->group(gate);

  auto* tr = "Translation";
  sub.add_option("--version", r.version, "etcd version X.Y.Z for every cluster instead of the image tag")->group(tr);
  sub.add_flag("--replace-client-service", r.replace_client_service,
               "Replace a legacy client Service named after the cluster although it is reached from outside "
               "(LoadBalancer, NodePort, external IPs): its external address is released")
      ->group(tr);
  sub.add_option("--auth-secret", r.auth_secret,
                 "Existing basic-auth Secret (same name in each namespace) for clusters with auth; default: "
                 "generate <cluster>-root-credentials")
      ->group(tr);

  auto* bk = "Safety backup";
  sub.add_flag("--skip-backup", r.skip_backup, "Adopt without a safety backup")->group(bk);
  sub.add_option("--backup-mode", r.backup_mode, "stream (the tool takes the snapshot itself) or job (a Job of the operator's snapshot agent)")
      ->default_str("stream")
      ->group(bk);
  sub.add_option("--backup-dir", r.backup_dir, "Directory for one snapshot file per cluster (stream mode; with --backup-s3-* both get it)")->group(bk);
  sub.add_option("--agent-image", r.agent_image, "Snapshot agent image (job mode; default: the new operator's)")
      ->group(bk);
  sub.add_option("--backup-timeout", r.backup_timeout, "How long each backup may take (job mode: also the Job's activeDeadlineSeconds)")->default_str("30m")->group(bk);
  sub.add_option("--backup-s3-endpoint", r.s3_endpoint, "S3 endpoint URL")->group(bk);
  sub.add_option("--backup-s3-bucket", r.s3_bucket, "S3 bucket")->group(bk);
  sub.add_option("--backup-s3-key", r.s3_key, "S3 key prefix; the object is PREFIX/<ns>-<cluster>-migration.db")->group(bk);
  sub.add_option("--backup-s3-region", r.s3_region, "S3 region")->group(bk);
  sub.add_flag("--backup-s3-force-path-style", r.s3_force_path_style, "Path-style S3 addressing (MinIO, Ceph)")
      ->group(bk);
  sub.add_option("--backup-s3-credentials-secret", r.s3_credentials_secret,
                 "Secret with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in each namespace (stream mode: default the AWS_* environment)")
      ->group(bk);
  sub.add_option("--backup-pvc-claim", r.pvc_claim, "PVC for the backup (job mode)")->group(bk);
  sub.add_option("--backup-pvc-subpath", r.pvc_subpath, "Directory inside that PVC (job mode)")->group(bk);

  auto* lg = "Legacy backups and webhooks";
  sub.add_flag("--convert-completed-backups", r.convert_completed_backups,
               "Also convert completed or failed legacy EtcdBackups into new EtcdSnapshots")
      ->group(lg);
  sub.add_option("--schedule-image", r.schedule_image, "Image of the printed snapshot CronJobs")
      ->default_str(std::string(op::kDefaultScheduleImage))
      ->group(lg);
  sub.add_flag("--remove-legacy-webhooks", r.remove_legacy_webhooks,
               "Remove the legacy operator's webhook configurations once no legacy cluster is left un-adopted")
      ->group(lg);

  sub.footer("Without --apply the plan is printed and nothing changes (exit 0, or 3 when a plan is blocked).\n"
             "With --apply each cluster runs its own resumable pipeline; re-run the same command after any\n"
             "interruption to finish (exit 0 all adopted, 5 some, 3 all blocked, 1 failed, 130/143 interrupted).\n"
             "--backup-dir writes <ns>-<cluster>-migration.db and its .uid mark through .part files: a device,\n"
             "FIFO, socket, directory or symbolic link at one of those paths blocks that cluster before anything\n"
             "changes; it is never replaced.");
  sub.callback([&action, &program, request, all_namespaces] {
    action = [&program, request, all_namespaces] { return run_adopt(program, *request, *all_namespaces); };
  });
}

}  // namespace tools
