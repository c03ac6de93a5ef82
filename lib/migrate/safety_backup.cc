#include "migrate/safety_backup.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "backup/s3_client.h"
#include "base/json_at.h"
#include "migrate/backup_target.h"
#include "migrate/job_backup.h"
#include "operator/backup_names.h"
#include "operator/meta.h"
#include "operator/names.h"

namespace migrate {

SafetyBackup::SafetyBackup(kube::Client& client, const ClusterPlan& plan, const op::LegacyCluster& legacy,
                           const AdoptRequest& request, const ValidRequest& valid, const ApplyHooks& hooks)
    : k_(client), p_(plan), legacy_(legacy), request_(request), valid_(valid), hooks_(hooks) {}

void SafetyBackup::progress(const std::string& what) const {
  if (hooks_.progress) hooks_.progress(p_.ns + "/" + p_.name + ": " + what);
}

bool SafetyBackup::stopped() const { return hooks_.stop != nullptr && hooks_.stop->load() != 0; }

bool pods_reowned(const ClusterPlan& plan, const Inventory& inventory) {
  if (plan.member_names.empty()) return false;
  for (const auto& m : plan.member_names) {
    const nlohmann::json* pod = find_object(inventory.pods, plan.ns, m);
    const nlohmann::json* ctrl = pod != nullptr ? op::controller_of(*pod) : nullptr;
    if (ctrl == nullptr || base::string_at(*ctrl, "/kind") != op::kKindEtcdMember) return false;
  }
  return true;
}

bool backup_destination_checked(const ClusterPlan& plan, const Inventory& inventory, const AdoptRequest& request,
                                const ValidRequest& valid) {
  return plan.action == ClusterAction::Adopt && !request.skip_backup && valid.backup_configured &&
         !pods_reowned(plan, inventory);
}

base::Result<BackupDestination> check_backup_destination(kube::Client& client, const ClusterPlan& plan,
                                                         const AdoptRequest& request, const ValidRequest& valid) {
  BackupDestination out;
  if (!request.backup_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(request.backup_dir, ec) || ::access(request.backup_dir.c_str(), W_OK) != 0) {
      return base::make_error(base::ErrorKind::Refused, "is not a writable directory", "--backup-dir " + request.backup_dir,
                              "create it first");
    }
    // What stands at the artefact's path is known now, before auth is touched.
    if (auto path = backup::local_backup_path(request.backup_dir, plan.ns, plan.name); !path) return std::move(path).error();
  }
  if (valid.backup_mode == BackupMode::Job) {
    // Job mode (docs/rules.md#backup-job): the Secret or PVC is there and the image known, before auth.
    if (auto s = check_job_destination(client, plan.ns, request); !s) return std::move(s).error();
    auto image = agent_image(client, request, valid.new_controller);
    if (!image) return std::move(image).error();
    out.agent_image = std::move(*image);
    return out;
  }
  if (valid.s3 && valid.backup_mode == BackupMode::Stream) {
    auto dest = s3_destination(client, plan.ns, request);
    if (!dest) return std::move(dest).error();
    backup::S3ClientOptions o;
    o.attempts = 1;  // a check: the user wants its answer now
    auto s3 = backup::S3Client::create(dest->location, dest->credentials, o);
    if (!s3) return std::move(s3).error();
    const std::string key = op::snapshot_object_key(dest->key_prefix, op::migration_snapshot_file(plan.ns, plan.name));
    if (auto s = (*s3)->check_access(key); !s) return std::move(s).error();
    out.s3 = std::move(*dest);
  }
  return out;
}

base::Status SafetyBackup::check() {
  auto d = check_backup_destination(k_, p_, request_, valid_);
  if (!d) return std::move(d).error();
  s3_ = std::move(d->s3);
  agent_image_ = std::move(d->agent_image);
  return {};
}

base::Result<std::string> SafetyBackup::stream(etcd::Client& c, const std::vector<EtcdTarget>& targets) {
  backup::StreamBackupRequest req;
  req.ns = p_.ns;
  req.cluster = p_.name;
  req.cluster_uid = p_.legacy_uid;
  for (const auto& t : targets) req.endpoints.push_back(t.config.endpoints.front());
  req.dir = request_.backup_dir;
  req.s3 = s3_;
  if (valid_.backup_timeout.count() > 0) req.deadline = std::chrono::system_clock::now() + valid_.backup_timeout;
  if (hooks_.transfer) {
    const std::string cluster = p_.ns + "/" + p_.name;
    req.progress = [this, cluster](const std::string& endpoint, std::uint64_t done, std::uint64_t total) {
      hooks_.transfer(cluster, endpoint, done, total);
    };
  }
  req.cancelled = [this] { return stopped(); };
  progress("backup: streaming a snapshot to " + destinations());
  auto r = backup::stream_backup(c, req);
  if (!r) return std::move(r).error();
  std::string where;
  for (const auto& d : r->destinations) where += (where.empty() ? "" : " and ") + d;
  return where + " (" + std::to_string(r->bytes) + " bytes, sha256 " + r->sha256 + ", revision " +
         std::to_string(r->revision) + ", from " + r->endpoint + ")";
}

base::Result<std::string> SafetyBackup::by_job() {
  backup::BackupJobSpec spec;
  spec.ns = p_.ns;
  spec.cluster = p_.name;
  spec.cluster_uid = p_.legacy_uid;
  spec.client_service = legacy_.client_service();
  spec.agent_image = agent_image_;
  spec.timeout = std::chrono::duration_cast<std::chrono::seconds>(valid_.backup_timeout);
  spec.server_secret = legacy_.tls_secret("serverSecret");
  spec.server_trusted_ca_secret = legacy_.tls_secret("serverTrustedCASecret");
  spec.client_secret = legacy_.tls_secret("clientSecret");
  std::string where;
  const std::string file = op::migration_snapshot_file(p_.ns, p_.name);
  if (valid_.pvc) {
    spec.pvc = backup::BackupJobPvc{request_.pvc_claim, request_.pvc_subpath};
    std::string sub = request_.pvc_subpath.empty() ? "" : "/" + request_.pvc_subpath;
    where = "PVC " + request_.pvc_claim + ":" + sub + "/" + file;
  } else {
    spec.s3 = backup::BackupJobS3{request_.s3_endpoint, request_.s3_bucket, request_.s3_key, request_.s3_region,
                                  request_.s3_force_path_style, request_.s3_credentials_secret};
    where = backup::s3_uri(request_.s3_bucket, op::snapshot_object_key(request_.s3_key, file));
  }
  JobBackupOptions o;
  if (valid_.backup_timeout.count() > 0) o.timeout = valid_.backup_timeout;
  o.cancelled = [this] { return stopped(); };
  o.progress = [this](const std::string& line) { progress(line); };
  progress("backup: a Job of the snapshot agent writes " + where);
  auto r = run_backup_job(k_, spec, o);
  if (!r) return std::move(r).error();
  return where + " (" + std::to_string(r->artefact.size) + " bytes, sha256 " + r->artefact.sha256 + ", by Job " +
         r->job + ", " + r->how + ")";
}

std::string SafetyBackup::destinations() const {
  std::string out;
  if (!request_.backup_dir.empty()) out = request_.backup_dir;
  if (s3_) {
    const std::string key = op::snapshot_object_key(s3_->key_prefix, op::migration_snapshot_file(p_.ns, p_.name));
    out += (out.empty() ? "" : " and ") + backup::s3_uri(s3_->location.bucket, key);
  }
  return out;
}

}  // namespace migrate
