#include "admin/restore_plan.h"

#include <cstdio>

#include "operator/names.h"

namespace admin {

namespace {

constexpr RestoreStepId kAllSteps[] = {RestoreStepId::VerifyFile,  RestoreStepId::ReadCredentials, RestoreStepId::Upload,
                                       RestoreStepId::CheckObject, RestoreStepId::CheckPvc,        RestoreStepId::ServerDryRun,
                                       RestoreStepId::Create};

using ojson = nlohmann::ordered_json;

base::Error usage(std::string message, std::string hint = {}) {
  return base::make_error(base::ErrorKind::Usage, std::move(message), {}, std::move(hint));
}

// X.Y.Z; false otherwise.
bool parse_version(const std::string& v, int& major, int& minor) {
  int patch = 0;
  char tail = 0;
  return std::sscanf(v.c_str(), "%d.%d.%d%c", &major, &minor, &patch, &tail) == 3;
}

}  // namespace

const char* restore_step_name(RestoreStepId id) {
  switch (id) {
    case RestoreStepId::VerifyFile: return "verify-file";
    case RestoreStepId::ReadCredentials: return "read-credentials";
    case RestoreStepId::Upload: return "upload";
    case RestoreStepId::CheckObject: return "check-object";
    case RestoreStepId::CheckPvc: return "check-pvc";
    case RestoreStepId::ServerDryRun: return "server-dry-run";
    case RestoreStepId::Create: return "create";
  }
  return "unknown";
}

std::optional<RestoreStepId> parse_restore_step(std::string_view name) {
  for (RestoreStepId id : kAllSteps) {
    if (name == restore_step_name(id)) return id;
  }
  return std::nullopt;
}

base::Result<RestorePlan> plan_restore(const RestoreRequest& r) {
  if (r.name.empty()) return usage("restore needs the new cluster's NAME");
  if (r.version.empty()) return usage("restore needs --version X.Y.Z", "the etcd version of the new cluster");
  const bool s3 = !r.s3_endpoint.empty() || !r.s3_bucket.empty() || !r.s3_secret.empty() || !r.s3_key.empty();
  const bool pvc = !r.pvc.empty() || !r.pvc_path.empty();
  if (s3 == pvc) {
    return usage("restore needs exactly one source",
                 "--s3-endpoint URL --s3-bucket B --s3-secret NAME [--s3-key KEY] [--file F], or --pvc CLAIM --pvc-path FILE");
  }
  RestorePlan p;
  p.request = r;
  int major = 0, minor = 0;
  if (!parse_version(r.version, major, minor)) return usage("--version \"" + r.version + "\" is not X.Y.Z");
  // The seed's restore container runs etcdutl from the cluster's own etcd
  // image, which etcd ships from 3.5 on.
  if (major < 3 || (major == 3 && minor < 5)) {
    p.refusals.push_back("etcd " + r.version + " has no etcdutl, which the operator's restore runs; use 3.5 or later");
  }
  if (r.replicas < 1) p.refusals.push_back("--replicas must be at least 1: the first member restores the snapshot");

  ojson source;
  if (s3) {
    if (r.s3_endpoint.empty() || r.s3_bucket.empty() || r.s3_secret.empty()) {
      return usage("an S3 source needs --s3-endpoint, --s3-bucket and --s3-secret");
    }
    if (r.s3_key.empty() && r.file.empty()) {
      return usage("an S3 source without --file needs --s3-key", "the exact key of the snapshot object");
    }
    p.s3_key = !r.s3_key.empty() ? r.s3_key : op::restore_object_key(r.name);
    p.source = "s3://" + r.s3_bucket + "/" + p.s3_key;
    source["s3"] = {{"endpoint", r.s3_endpoint},
                    {"bucket", r.s3_bucket},
                    {"key", p.s3_key},
                    {"credentialsSecretRef", {{"name", r.s3_secret}}}};
    if (!r.s3_region.empty()) source["s3"]["region"] = r.s3_region;
    if (r.s3_force_path_style) source["s3"]["forcePathStyle"] = true;
  } else {
    if (r.pvc.empty() || r.pvc_path.empty()) {
      return usage("a PVC source needs --pvc CLAIM and --pvc-path FILE", "the exact snapshot file in the volume");
    }
    if (!r.file.empty()) {
      return usage("--file cannot be copied into a PVC by restore",
                   "copy it into the claim yourself (docs/restore.md), then give --pvc and --pvc-path; or use an S3 source");
    }
    p.source = "pvc " + r.pvc + ":" + r.pvc_path;
    source["pvc"] = {{"claimName", r.pvc}, {"subPath", r.pvc_path}};
  }

  ojson storage = ojson::object();
  if (!r.storage_size.empty()) storage["size"] = r.storage_size;
  p.object = {{"apiVersion", std::string(op::kApiVersion)},
              {"kind", std::string(op::kKindEtcdCluster)},
              {"metadata", {{"name", r.name}, {"namespace", r.ns}}},
              {"spec",
               {{"replicas", r.replicas},
                {"version", r.version},
                {"storage", storage},
                {"bootstrap", {{"restore", {{"source", source}}}}}}}};

  if (!r.file.empty()) p.steps.push_back({RestoreStepId::VerifyFile, "check " + r.file + ": size, sha256 trailer, whether auth is enabled"});
  if (s3) {
    p.steps.push_back({RestoreStepId::ReadCredentials, "read Secret " + r.ns + "/" + r.s3_secret +
                                               " (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), as the operator will"});
    if (!r.file.empty()) {
      p.steps.push_back({RestoreStepId::Upload, "upload " + r.file + " to " + p.source + " (kept when it is already there)"});
    } else {
      p.steps.push_back({RestoreStepId::CheckObject, "check that " + p.source + " exists and has a snapshot's size"});
    }
  } else {
    p.steps.push_back({RestoreStepId::CheckPvc, "check that PVC " + r.ns + "/" + r.pvc + " exists"});
  }
  p.steps.push_back({RestoreStepId::ServerDryRun, "create the EtcdCluster with dryRun=All"});
  p.steps.push_back({RestoreStepId::Create, "create EtcdCluster " + r.ns + "/" + r.name});
  return p;
}

nlohmann::ordered_json restore_plan_document(const RestorePlan& p) {
  ojson steps = ojson::array();
  for (const auto& s : p.steps) steps.push_back({{"step", restore_step_name(s.id)}, {"detail", s.detail}});
  return {{"cluster", p.request.name},
          {"namespace", p.request.ns},
          {"source", p.source},
          {"file", p.request.file},
          {"steps", steps},
          {"refusals", p.refusals},
          {"object", p.object}};
}

std::string restore_plan_text(const RestorePlan& p) {
  std::string out = "restore " + p.request.ns + "/" + p.request.name + " from " + p.source;
  if (!p.request.file.empty()) out += " (file " + p.request.file + ")";
  out += "\n";
  for (const auto& s : p.steps) out += "  " + std::string(restore_step_name(s.id)) + ": " + s.detail + "\n";
  for (const auto& r : p.refusals) out += "  refused: " + r + "\n";
  out += "object:\n";
  std::string body = p.object.dump(2);
  for (size_t at = 0, next; at < body.size(); at = next + 1) {
    next = body.find('\n', at);
    if (next == std::string::npos) next = body.size();
    out += "  " + body.substr(at, next - at) + "\n";
  }
  return out;
}

}  // namespace admin
