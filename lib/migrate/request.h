// The request value of `etcd-migrate adopt`: every flag of adoption.md §2
// plus cli.md's shared ones and decisions.md E9/E12, bound by the program
// and checked here before anything is contacted.
#pragma once

#include <chrono>
#include <string>

#include "cli/kube_flags.h"
#include "cli/result.h"

namespace migrate {

enum class Connect { Auto, Direct, PortForward };
enum class BackupMode { Stream, Job };

struct AdoptRequest {
  cli::KubeFlags kube;  // -n empty = every namespace (the reference's scope)
  bool apply = false;
  bool dry_run = false;  // explicit synonym of "no --apply" (E12)
  bool yes = false;
  std::string output = "table";
  std::string connect = "auto";
  bool in_cluster = false;  // KUBERNETES_SERVICE_HOST is set: auto means direct
  int concurrency = 4;

  bool skip_controller_check = false;
  std::string legacy_controller;  // NAMESPACE/NAME
  std::string new_controller;
  std::string version;      // --version: X.Y.Z for every cluster
  std::string auth_secret;  // --auth-secret
  bool skip_backup = false;
  std::string backup_mode = "stream";
  std::string backup_dir;
  std::string agent_image;
  std::string backup_timeout = "30m";
  std::string s3_endpoint, s3_bucket, s3_key, s3_region, s3_credentials_secret;
  bool s3_force_path_style = false;
  std::string pvc_claim, pvc_subpath;
  bool convert_completed_backups = false;
  bool remove_legacy_webhooks = false;
  bool replace_client_service = false;  // accept replacing an externally reached client Service <c> (W21)
  std::string schedule_image;
};

// A NAMESPACE/NAME coordinate.
struct Coordinates {
  std::string ns;
  std::string name;
  std::string text() const { return ns + "/" + name; }
  bool operator==(const Coordinates&) const = default;
};

// What validation derives from the flags.
struct ValidRequest {
  Coordinates legacy_controller;
  Coordinates new_controller;
  Connect connect = Connect::Direct;
  BackupMode backup_mode = BackupMode::Stream;
  bool s3 = false;   // an S3 destination was requested
  bool pvc = false;  // a PVC destination (job mode)
  bool backup_configured = false;
  std::chrono::milliseconds backup_timeout{0};
};

// adoption.md §2's rules in order, then E9 and E12. Every failure is a usage
// error (128, cli.md wins over the reference's 1) naming the flag and the fix.
cli::Result<ValidRequest> validate(const AdoptRequest& request);

cli::Result<Coordinates> parse_coordinates(const std::string& flag, const std::string& value);

}  // namespace migrate
