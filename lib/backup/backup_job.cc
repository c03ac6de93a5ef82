#include "backup/backup_job.h"

#include "operator/agent_result.h"
#include "operator/backup_names.h"
#include "operator/names.h"

namespace backup {

namespace {

using json = nlohmann::ordered_json;

json env(const std::string& name, const std::string& value) { return {{"name", name}, {"value", value}}; }

json secret_env(const std::string& name, const std::string& secret) {
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", {{"name", secret}, {"key", name}}}}}};
}

}  // namespace

json backup_job(const BackupJobSpec& s) {
  const bool tls = !s.server_secret.empty();
  const bool client_tls = tls && !s.client_secret.empty();
  const std::string service = s.client_service.empty() ? s.cluster : s.client_service;
  const std::string mount = "/snapshot/data";

  json e = json::array();
  e.push_back(env("ETCD_ENDPOINTS", std::string(tls ? "https://" : "http://") + op::service_dns(service, s.ns) + ":" +
                                        std::to_string(op::kClientPort)));
  e.push_back(env("SNAPSHOT_NAME", op::migration_snapshot_name(s.ns, s.cluster)));
  e.push_back(env("SNAPSHOT_UID", s.cluster_uid));
  if (tls) e.push_back(env("ETCD_TLS_CA_PATH", "/etc/etcd/pki/ca/ca.crt"));
  if (client_tls) {
    e.push_back(env("ETCD_TLS_CERT_PATH", "/etc/etcd/pki/client/tls.crt"));
    e.push_back(env("ETCD_TLS_KEY_PATH", "/etc/etcd/pki/client/tls.key"));
  }
  json volumes = json::array();
  json mounts = json::array();
  if (tls) {
    const std::string& ca = s.server_trusted_ca_secret.empty() ? s.server_secret : s.server_trusted_ca_secret;
    volumes.push_back({{"name", "etcd-ca"}, {"secret", {{"secretName", ca}}}});
    mounts.push_back({{"name", "etcd-ca"}, {"mountPath", "/etc/etcd/pki/ca"}, {"readOnly", true}});
  }
  if (client_tls) {
    volumes.push_back({{"name", "etcd-client"}, {"secret", {{"secretName", s.client_secret}}}});
    mounts.push_back({{"name", "etcd-client"}, {"mountPath", "/etc/etcd/pki/client"}, {"readOnly", true}});
  }
  if (s.pvc) {
    e.push_back(env("SNAPSHOT_DEST_KIND", "pvc"));
    e.push_back(env("PVC_MOUNT_PATH", mount));
    e.push_back(env("PVC_SUBPATH", s.pvc->subpath));
    volumes.push_back({{"name", "snapshot-data"}, {"persistentVolumeClaim", {{"claimName", s.pvc->claim}}}});
    mounts.push_back({{"name", "snapshot-data"}, {"mountPath", mount}});
  } else if (s.s3) {
    e.push_back(env("SNAPSHOT_DEST_KIND", "s3"));
    e.push_back(env("S3_ENDPOINT", s.s3->endpoint));
    e.push_back(env("S3_BUCKET", s.s3->bucket));
    e.push_back(env("S3_KEY", s.s3->key));
    e.push_back(env("S3_REGION", s.s3->region));
    e.push_back(env("S3_FORCE_PATH_STYLE", s.s3->force_path_style ? "true" : "false"));
    e.push_back(secret_env("AWS_ACCESS_KEY_ID", s.s3->credentials_secret));
    e.push_back(secret_env("AWS_SECRET_ACCESS_KEY", s.s3->credentials_secret));
  }

  json container = {
      {"name", op::kAgentContainer},
      {"image", s.agent_image},
      {"command", {"/manager", "snapshot-agent"}},
      {"env", e},
  };
  if (!mounts.empty()) container["volumeMounts"] = mounts;
  container["securityContext"] = {{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", {"ALL"}}}}};
  container["resources"] = {{"requests", {{"cpu", "50m"}, {"memory", "64Mi"}}}, {"limits", {{"memory", "256Mi"}}}};

  json pod = {
      {"restartPolicy", "Never"},
      {"automountServiceAccountToken", false},
      {"securityContext",
       {{"runAsNonRoot", true},
        {"runAsUser", 65532},
        {"runAsGroup", 65532},
        {"fsGroup", 65532},
        {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      {"containers", json::array({container})},
  };
  if (!volumes.empty()) pod["volumes"] = volumes;

  // docs/rules.md#backup-job: the Job may run as long as the tool waits for it, and no longer.
  long long deadline = s.timeout.count() > 0 ? s.timeout.count() : 1800;
  return {
      {"apiVersion", "batch/v1"},
      {"kind", "Job"},
      {"metadata",
       {{"name", op::migration_snapshot_job(s.cluster)},
        {"namespace", s.ns},
        {"labels", {{std::string(op::kLabelCreatedBy), std::string(op::kCreatedByMigrate)}}}}},
      {"spec",
       {{"backoffLimit", 3},
        {"ttlSecondsAfterFinished", 600},
        {"activeDeadlineSeconds", deadline},
        {"template", {{"spec", pod}}}}},
  };
}

namespace {

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

const nlohmann::json& at(const nlohmann::json& j, std::initializer_list<const char*> path) {
  static const nlohmann::json none;
  const nlohmann::json* cur = &j;
  for (const char* k : path) {
    if (!cur->is_object()) return none;
    auto it = cur->find(k);
    if (it == cur->end()) return none;
    cur = &*it;
  }
  return *cur;
}

}  // namespace

JobVerdict job_verdict(const nlohmann::json& job) {
  JobVerdict v;
  const auto& conds = at(job, {"status", "conditions"});
  if (!conds.is_array()) return v;
  for (const auto& c : conds) {
    if (str(c, "status") != "True") continue;
    if (str(c, "type") == "Complete") return {JobPhase::Complete, ""};
    if (str(c, "type") == "Failed") {
      std::string why = str(c, "reason");
      std::string msg = str(c, "message");
      if (!msg.empty()) why += (why.empty() ? "" : ": ") + msg;
      v = {JobPhase::Failed, why};
    }
  }
  return v;
}

// The scheduler's words for a pod whose PVC is not bound yet.
constexpr const char* kUnboundClaims = "unbound immediate PersistentVolumeClaims";

std::string pod_stuck_reason(const nlohmann::json& pod) {
  static const char* hopeless[] = {"CreateContainerConfigError", "ErrImagePull", "ImagePullBackOff",
                                   "InvalidImageName", "CreateContainerError"};
  for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
    const auto& statuses = at(pod, {"status", list});
    if (!statuses.is_array()) continue;
    for (const auto& cs : statuses) {
      const auto& waiting = at(cs, {"state", "waiting"});
      std::string reason = str(waiting, "reason");
      for (const char* h : hopeless) {
        if (reason == h) {
          std::string msg = str(waiting, "message");
          return "container " + str(cs, "name") + ": " + reason + (msg.empty() ? "" : ": " + msg);
        }
      }
    }
  }
  const auto& conds = at(pod, {"status", "conditions"});
  if (conds.is_array()) {
    for (const auto& c : conds) {
      if (str(c, "type") == "PodScheduled" && str(c, "status") == "False" && str(c, "reason") == "Unschedulable") {
        std::string msg = str(c, "message");
        // docs/rules.md#backup-job: a PVC still Pending (created a moment ago, its volume
        // being provisioned) gets bound, and the scheduler tries again; --backup-timeout bounds it.
        if (msg.find(kUnboundClaims) != std::string::npos) continue;
        return "Unschedulable" + (msg.empty() ? std::string() : ": " + msg);
      }
    }
  }
  return {};
}

}  // namespace backup
