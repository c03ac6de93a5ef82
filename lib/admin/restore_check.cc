#include "admin/restore_check.h"

#include <map>

#include "backup/s3_config.h"
#include "base/json_at.h"
#include "etcd/bolt.h"
#include "kube/base64.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

base::Result<std::unique_ptr<backup::S3Client>> s3_client(const RestorePlan& p, const RestoreCheck& c) {
  backup::S3Location l;
  l.endpoint = p.request.s3_endpoint;
  l.bucket = p.request.s3_bucket;
  l.region = p.request.s3_region;
  l.force_path_style = p.request.s3_force_path_style;
  return backup::S3Client::create(l, *c.credentials);
}

base::Result<RestoreStepResult> verify_file(const RestorePlan& p, RestoreCheck& c) {
  auto rep = verify_snapshot_file(p.request.file);
  if (rep.cannot_open) return *rep.cannot_open;
  if (!rep.valid) {
    return base::make_error(base::ErrorKind::Failed, "not a complete snapshot: " + rep.error, "file " + p.request.file,
                            "use a file written by `kubectl etcd snapshot save` (or etcdctl snapshot save)");
  }
  // The operator cannot restore an auth-enabled snapshot into a cluster
  // without spec.auth, and spec.auth cannot be added after the create
  // (docs/restore.md#auth).
  auto auth = etcd::snapshot_auth_enabled(p.request.file, rep.size - 32);
  if (!auth) {
    return base::make_error(base::ErrorKind::Failed, "not a complete snapshot: " + auth.error().message,
                            "file " + p.request.file,
                            "use a file written by `kubectl etcd snapshot save` (or etcdctl snapshot save)");
  }
  if (*auth) {
    c.refusals.push_back("the snapshot has auth enabled: the new EtcdCluster needs spec.auth (a Secret with the "
                         "snapshot's root password) and spec.tls.client, which restore does not set; write the "
                         "object from `--dry-run -o yaml` with both added and create it yourself (docs/restore.md#auth)");
  }
  c.file = rep;
  return RestoreStepResult{RestoreStepId::VerifyFile, "done",
                           "sha256 " + rep.sha256 + ", " + std::to_string(rep.size) + " bytes, auth " +
                               (*auth ? "enabled" : "disabled")};
}

base::Result<RestoreStepResult> read_credentials(kube::Client& kube, const RestorePlan& p, RestoreCheck& c) {
  const auto& r = p.request;
  const std::string object = "secret \"" + r.ns + "/" + r.s3_secret + "\"";
  auto secret = kube.get(kube::resources::secrets, r.ns, r.s3_secret);
  if (!secret) {
    auto e = std::move(secret).error();
    if (e.kind == base::ErrorKind::NotFound) {
      return base::make_error(base::ErrorKind::NotFound, "does not exist", object,
                              "create it in the new cluster's namespace with AWS_ACCESS_KEY_ID and "
                              "AWS_SECRET_ACCESS_KEY: the operator's restore reads it too");
    }
    return e;
  }
  std::map<std::string, std::string> data;
  if (const auto* d = base::find_at(*secret, "/data"); d != nullptr && d->is_object()) {
    for (const auto& [k, v] : d->items()) {
      if (!v.is_string()) continue;
      if (auto decoded = kube::base64_decode(v.get<std::string>())) data[k] = std::move(*decoded);
    }
  }
  auto creds = backup::s3_credentials_from_secret(data, r.ns + "/" + r.s3_secret);
  if (!creds) return std::move(creds).error();
  c.credentials = std::move(*creds);
  return RestoreStepResult{RestoreStepId::ReadCredentials, "done", "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY present"};
}

// The bucket takes the credentials and the key is free, or holds this very
// file (an earlier run's upload).
base::Result<RestoreStepResult> check_upload(const RestorePlan& p, RestoreCheck& c) {
  auto client = s3_client(p, c);
  if (!client) return std::move(client).error();
  if (auto a = (*client)->check_access(p.s3_key); !a) return std::move(a).error();
  auto head = (*client)->head(p.s3_key);
  if (!head) return std::move(head).error();
  if (*head) {
    auto it = (*head)->metadata.find(std::string(op::kRestoreSha256Metadata));
    if (it != (*head)->metadata.end() && it->second == c.file->sha256 && (*head)->size == c.file->size) {
      c.uploaded = true;
      return RestoreStepResult{RestoreStepId::Upload, "done", p.source + " already holds this file"};
    }
    return base::make_error(base::ErrorKind::Refused, "another object is already under the key", p.source,
                            "give another --s3-key, or restore from that object without --file");
  }
  return RestoreStepResult{RestoreStepId::Upload, "pending", std::to_string(c.file->size) + " bytes to " + p.source};
}

base::Result<RestoreStepResult> check_object(const RestorePlan& p, const RestoreCheck& c) {
  auto client = s3_client(p, c);
  if (!client) return std::move(client).error();
  if (auto a = (*client)->check_access(p.s3_key); !a) return std::move(a).error();
  auto head = (*client)->head(p.s3_key);
  if (!head) return std::move(head).error();
  if (!*head) {
    return base::make_error(base::ErrorKind::NotFound, "no such object", p.source,
                            "give the exact key of the snapshot (--s3-key), or upload one with --file");
  }
  // A snapshot is a bbolt db (pages of 512-byte multiples) plus a 32-byte
  // sha256 trailer.
  if ((*head)->size % 512 != 32) {
    return base::make_error(base::ErrorKind::Failed,
                            "size " + std::to_string((*head)->size) + " is not a snapshot's (a db plus its sha256 trailer)",
                            p.source, "give the key of a file written by `snapshot save`");
  }
  return RestoreStepResult{RestoreStepId::CheckObject, "done", std::to_string((*head)->size) + " bytes"};
}

base::Result<RestoreStepResult> check_pvc(kube::Client& kube, const RestorePlan& p) {
  const auto& r = p.request;
  auto pvc = kube.get(kube::resources::persistentvolumeclaims, r.ns, r.pvc);
  if (!pvc) {
    auto e = std::move(pvc).error();
    if (e.kind == base::ErrorKind::NotFound) {
      e.object = "persistentvolumeclaim \"" + r.ns + "/" + r.pvc + "\"";
      e.hint = "restore reads an existing claim that holds the snapshot file (docs/restore.md)";
    }
    return e;
  }
  return RestoreStepResult{RestoreStepId::CheckPvc, "done", "exists (its content is read by the operator's init container)"};
}

// An EtcdCluster already there: ours from an earlier run (same bootstrap),
// or someone else's. Otherwise the server judges the object (schema, CEL).
base::Result<RestoreStepResult> server_dry_run(kube::Client& kube, const RestorePlan& p, RestoreCheck& c) {
  const auto& r = p.request;
  auto existing = kube.get(op::resources::etcdclusters, r.ns, r.name);
  if (existing) {
    const auto* bootstrap = base::find_at(*existing, "/spec/bootstrap");
    if (bootstrap == nullptr || *bootstrap != base::object_at(p.object, "/spec/bootstrap")) {
      return base::make_error(base::ErrorKind::Refused, "already exists, not restored from " + p.source,
                              op::resources::etcdclusters.describe(r.ns, r.name), "choose another name");
    }
    c.cluster_exists = true;
    c.cluster = std::move(*existing);
    return RestoreStepResult{RestoreStepId::ServerDryRun, "done", "the EtcdCluster exists with this restore source"};
  }
  if (existing.error().kind != base::ErrorKind::NotFound) return std::move(existing).error();
  kube::WriteOptions o;
  o.dry_run = true;
  auto dry = kube.create(op::resources::etcdclusters, r.ns, json(p.object), o);
  if (!dry) return std::move(dry).error();
  return RestoreStepResult{RestoreStepId::ServerDryRun, "did", "accepted"};
}

// The check of one step; the writes (upload, create) answer whether they
// are still to do. A switch over the enum: a step without a check does not
// compile, where a name matched as a string was skipped silently.
base::Result<RestoreStepResult> check_step(kube::Client& kube, const RestorePlan& plan, RestoreStepId id, RestoreCheck& c) {
  switch (id) {
    case RestoreStepId::VerifyFile: return verify_file(plan, c);
    case RestoreStepId::ReadCredentials: return read_credentials(kube, plan, c);
    case RestoreStepId::Upload: return check_upload(plan, c);
    case RestoreStepId::CheckObject: return check_object(plan, c);
    case RestoreStepId::CheckPvc: return check_pvc(kube, plan);
    case RestoreStepId::ServerDryRun: return server_dry_run(kube, plan, c);
    case RestoreStepId::Create:
      return c.cluster_exists ? RestoreStepResult{RestoreStepId::Create, "done", "created by an earlier run"}
                              : RestoreStepResult{RestoreStepId::Create, "pending",
                                                  "EtcdCluster " + plan.request.ns + "/" + plan.request.name};
  }
  return base::make_error(base::ErrorKind::Failed, std::string("no check for step ") + restore_step_name(id));
}

}  // namespace

base::Result<RestoreCheck> check_restore(kube::Client& kube, const RestorePlan& plan) {
  RestoreCheck c;
  if (plan.refused()) return c;
  for (const auto& step : plan.steps) {
    base::Result<RestoreStepResult> r = check_step(kube, plan, step.id, c);
    if (!r) return std::move(r).error();
    c.steps.push_back(std::move(*r));
  }
  return c;
}

base::Error restore_refusal(const RestorePlan& plan, const RestoreCheck& check) {
  const auto& refusals = plan.refused() ? plan.refusals : check.refusals;
  return base::make_error(base::ErrorKind::Refused, refusals.empty() ? std::string("refused") : refusals.front(),
                          op::resources::etcdclusters.describe(plan.request.ns, plan.request.name));
}

ojson restore_check_document(const RestorePlan& plan, const RestoreCheck& check) {
  ojson doc = restore_plan_document(plan);
  ojson checks = ojson::array();
  for (const auto& s : check.steps) checks.push_back({{"step", restore_step_name(s.step)}, {"outcome", s.outcome}, {"detail", s.detail}});
  doc["checks"] = checks;
  for (const auto& r : check.refusals) doc["refusals"].push_back(r);
  return doc;
}

std::string restore_check_text(const RestorePlan& plan, const RestoreCheck& check) {
  std::string out = restore_plan_text(plan);
  if (!check.steps.empty()) out += "checked (nothing was changed):\n";
  for (const auto& s : check.steps) {
    out += "  " + std::string(restore_step_name(s.step)) + ": " + s.outcome + (s.detail.empty() ? "" : " (" + s.detail + ")") + "\n";
  }
  for (const auto& r : check.refusals) out += "  refused: " + r + "\n";
  return out;
}

}  // namespace admin
