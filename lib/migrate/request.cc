#include "migrate/request.h"

#include "base/duration.h"
#include "operator/names.h"

namespace migrate {

namespace {

base::Error usage(std::string message, std::string hint = {}) {
  return base::make_error(base::ErrorKind::Usage, std::move(message), {}, std::move(hint));
}

}  // namespace

base::Result<Coordinates> parse_coordinates(const std::string& flag, const std::string& value) {
  auto slash = value.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == value.size() ||
      value.find('/', slash + 1) != std::string::npos) {
    return usage(flag + " \"" + value + "\" is not NAMESPACE/NAME", "e.g. " + flag + " " +
                                                                        std::string(op::kDefaultLegacyController));
  }
  return Coordinates{value.substr(0, slash), value.substr(slash + 1)};
}

base::Result<ValidRequest> validate(const AdoptRequest& r) {
  ValidRequest v;
  auto legacy = parse_coordinates("--legacy-controller", r.legacy_controller);
  if (!legacy) return legacy.error();
  auto fresh = parse_coordinates("--new-controller", r.new_controller);
  if (!fresh) return fresh.error();
  v.legacy_controller = *legacy;
  v.new_controller = *fresh;

  if (r.apply && r.dry_run) return usage("--apply and --dry-run contradict each other", "give one of them");
  if (r.concurrency < 1 || r.concurrency > 64) return usage("--concurrency must be between 1 and 64");

  if (r.connect == "direct") {
    v.connect = Connect::Direct;
  } else if (r.connect == "auto") {
    // Direct inside a cluster, port-forward outside (docs/rules.md#connect-modes).
    v.connect = r.in_cluster ? Connect::Direct : Connect::PortForward;
  } else if (r.connect == "port-forward") {
    v.connect = Connect::PortForward;
  } else {
    return usage("--connect \"" + r.connect + "\" is not one of auto, direct, port-forward");
  }

  if (r.backup_mode == "stream") v.backup_mode = BackupMode::Stream;
  else if (r.backup_mode == "job") v.backup_mode = BackupMode::Job;
  else return usage("--backup-mode \"" + r.backup_mode + "\" is not one of stream, job");

  auto timeout = base::parse_duration(r.backup_timeout);
  if (!timeout) {
    base::Error e = timeout.error();
    e.message = "--backup-timeout: " + e.message;
    return e;
  }
  if (timeout->count() <= 0) return usage("--backup-timeout must be positive");
  v.backup_timeout = *timeout;

  // docs/rules.md#adopt-flag-rules, the backup destinations.
  v.s3 = !r.s3_endpoint.empty() || !r.s3_bucket.empty() || !r.s3_credentials_secret.empty();
  v.pvc = !r.pvc_claim.empty();
  bool dir = !r.backup_dir.empty();
  if (r.skip_backup && (v.s3 || v.pvc || dir)) {
    return usage("--skip-backup contradicts the backup destination flags", "give one or the other");
  }
  // Each destination belongs to one mode (docs/rules.md#adopt-flag-rules).
  if (v.backup_mode == BackupMode::Stream && (v.pvc || !r.pvc_subpath.empty())) {
    return usage("--backup-pvc-claim/--backup-pvc-subpath need --backup-mode job",
                 "stream mode writes to --backup-dir and/or S3");
  }
  if (v.backup_mode == BackupMode::Job && dir) {
    return usage("--backup-dir needs --backup-mode stream", "job mode writes to S3 or a PVC");
  }
  if (v.s3 && v.pvc) return usage("an S3 and a PVC backup destination exclude each other", "choose one");
  if (v.s3 && (r.s3_endpoint.empty() || r.s3_bucket.empty() || r.s3_credentials_secret.empty())) {
    if (v.backup_mode == BackupMode::Job || r.s3_endpoint.empty() || r.s3_bucket.empty()) {
      return usage("an S3 backup needs --backup-s3-endpoint, --backup-s3-bucket and --backup-s3-credentials-secret" +
                       std::string(v.backup_mode == BackupMode::Stream ? " (or the AWS_* environment for the credentials)" : ""));
    }
  }
  v.backup_configured = !r.skip_backup && (v.s3 || v.pvc || dir);
  if (r.apply && !r.skip_backup && !v.backup_configured) {
    return usage("--apply needs a safety backup destination",
                 "give --backup-dir DIR or --backup-s3-*, or --skip-backup to adopt without one");
  }
  return v;
}

}  // namespace migrate
