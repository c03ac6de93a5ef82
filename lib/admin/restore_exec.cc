#include "admin/restore_exec.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include "admin/snapshot.h"
#include "backup/s3_client.h"
#include "backup/s3_config.h"
#include "backup/s3_sink.h"
#include "base/json_at.h"
#include "base/sha256.h"
#include "kube/base64.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

namespace {

using json = nlohmann::json;

struct State {
  std::optional<SnapshotFileReport> file;
  std::optional<backup::S3Credentials> credentials;
  bool cluster_exists = false;
  json cluster;
};

backup::S3Location location_of(const RestoreRequest& r) {
  backup::S3Location l;
  l.endpoint = r.s3_endpoint;
  l.bucket = r.s3_bucket;
  l.region = r.s3_region;
  l.force_path_style = r.s3_force_path_style;
  return l;
}

base::Result<std::string> verify_file(const RestorePlan& p, State& st) {
  auto rep = verify_snapshot_file(p.request.file);
  if (!rep.valid) {
    return base::make_error(base::ErrorKind::Failed, "not a complete snapshot: " + rep.error, "file " + p.request.file,
                           "use a file written by `kubectl etcd snapshot save` (or etcdctl snapshot save)");
  }
  st.file = rep;
  return "sha256 " + rep.sha256 + ", " + std::to_string(rep.size) + " bytes";
}

base::Result<std::string> read_credentials(kube::Client& kube, const RestorePlan& p, State& st) {
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
  st.credentials = std::move(*creds);
  return std::string("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY present");
}

// Streams the file into the object, its db sha256 in the metadata.
base::Status upload_file(const RestorePlan& p, const State& st, const RestoreHooks& hooks) {
  backup::S3SinkOptions o;
  o.metadata[std::string(op::kRestoreSha256Metadata)] = st.file->sha256;
  o.owner_key = std::string(op::kRestoreSha256Metadata);
  o.expected_size = st.file->size;
  auto sink = backup::S3Sink::create(location_of(p.request), *st.credentials, p.s3_key, o);
  if (!sink) return std::move(sink).error();
  int fd = ::open(p.request.file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return base::make_error(base::ErrorKind::Failed, std::string("cannot open: ") + std::strerror(errno),
                           "file " + p.request.file);
  }
  base::Sha256 sha;
  std::vector<char> buf(1 << 20);
  std::uint64_t done = 0;
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      (*sink)->abort();
      return base::make_error(base::ErrorKind::Failed, std::string("read failed: ") + std::strerror(err),
                             "file " + p.request.file);
    }
    if (n == 0) break;
    std::string_view chunk(buf.data(), static_cast<std::size_t>(n));
    sha.update(chunk);
    if (auto w = (*sink)->write(chunk); !w) {
      ::close(fd);
      return w;
    }
    done += static_cast<std::uint64_t>(n);
    if (hooks.upload_progress) hooks.upload_progress(done, st.file->size);
  }
  ::close(fd);
  if (done != st.file->size) {
    (*sink)->abort();
    return base::make_error(base::ErrorKind::Failed, "the file changed while it was uploaded", "file " + p.request.file);
  }
  (*sink)->written_sha256(sha.finish());
  return (*sink)->commit();
}

base::Result<RestoreStepResult> upload(const RestorePlan& p, State& st, const RestoreHooks& hooks) {
  auto client = backup::S3Client::create(location_of(p.request), *st.credentials);
  if (!client) return std::move(client).error();
  if (auto a = (*client)->check_access(p.s3_key); !a) return std::move(a).error();
  auto head = (*client)->head(p.s3_key);
  if (!head) return std::move(head).error();
  if (*head) {
    auto it = (*head)->metadata.find(std::string(op::kRestoreSha256Metadata));
    if (it != (*head)->metadata.end() && it->second == st.file->sha256 && (*head)->size == st.file->size) {
      return RestoreStepResult{"upload", "done", p.source + " already holds this file"};
    }
    return base::make_error(base::ErrorKind::Refused, "another object is already under the key", p.source,
                           "give another --s3-key, or restore from that object without --file");
  }
  if (auto u = upload_file(p, st, hooks); !u) return std::move(u).error();
  return RestoreStepResult{"upload", "did", std::to_string(st.file->size) + " bytes to " + p.source};
}

base::Result<RestoreStepResult> check_object(const RestorePlan& p, const State& st) {
  auto client = backup::S3Client::create(location_of(p.request), *st.credentials);
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
  return RestoreStepResult{"check-object", "done", std::to_string((*head)->size) + " bytes"};
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
  return RestoreStepResult{"check-pvc", "done", "exists (its content is read by the operator's init container)"};
}

// An EtcdCluster already there: ours from an earlier run (same bootstrap),
// or someone else's.
base::Status read_cluster(kube::Client& kube, const RestorePlan& p, State& st) {
  const auto& r = p.request;
  auto c = kube.get(op::resources::etcdclusters, r.ns, r.name);
  if (!c) {
    if (c.error().kind == base::ErrorKind::NotFound) return {};
    return std::move(c).error();
  }
  const auto* bootstrap = base::find_at(*c, "/spec/bootstrap");
  if (bootstrap == nullptr || *bootstrap != json(p.object["spec"]["bootstrap"])) {
    return base::make_error(base::ErrorKind::Refused, "already exists, not restored from " + p.source,
                           op::resources::etcdclusters.describe(r.ns, r.name), "choose another name");
  }
  st.cluster_exists = true;
  st.cluster = std::move(*c);
  return {};
}

}  // namespace

base::Result<RestoreReport> execute_restore(kube::Client& kube, const RestorePlan& plan, const RestoreHooks& hooks) {
  if (plan.refused()) {
    return base::make_error(base::ErrorKind::Refused, plan.refusals.front(),
                           op::resources::etcdclusters.describe(plan.request.ns, plan.request.name));
  }
  RestoreReport report;
  State st;
  auto record = [&](RestoreStepResult r) {
    if (hooks.step_done) hooks.step_done(r);
    report.steps.push_back(std::move(r));
  };
  const json object(plan.object);
  for (const auto& step : plan.steps) {
    if (step.name == "verify-file") {
      auto d = verify_file(plan, st);
      if (!d) return std::move(d).error();
      record({step.name, "done", *d});
    } else if (step.name == "read-credentials") {
      auto d = read_credentials(kube, plan, st);
      if (!d) return std::move(d).error();
      record({step.name, "done", *d});
    } else if (step.name == "upload" || step.name == "check-object" || step.name == "check-pvc") {
      auto r = step.name == "upload"         ? upload(plan, st, hooks)
               : step.name == "check-object" ? check_object(plan, st)
                                              : check_pvc(kube, plan);
      if (!r) return std::move(r).error();
      record(std::move(*r));
    } else if (step.name == "server-dry-run") {
      if (auto s = read_cluster(kube, plan, st); !s) return std::move(s).error();
      if (st.cluster_exists) {
        record({step.name, "done", "the EtcdCluster exists with this restore source"});
        continue;
      }
      kube::WriteOptions o;
      o.dry_run = true;
      auto dry = kube.create(op::resources::etcdclusters, plan.request.ns, object, o);
      if (!dry) return std::move(dry).error();
      record({step.name, "did", "accepted"});
    } else if (step.name == "create") {
      if (st.cluster_exists) {
        report.object = st.cluster;
        record({step.name, "done", "created by an earlier run"});
        continue;
      }
      auto created = kube.create(op::resources::etcdclusters, plan.request.ns, object);
      if (!created) return std::move(created).error();
      report.object = std::move(*created);
      record({step.name, "did", "uid " + report.object["metadata"].value("uid", std::string())});
    }
  }
  return report;
}

nlohmann::ordered_json restore_report_document(const RestorePlan& plan, const RestoreReport& report) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const auto& s : report.steps) steps.push_back({{"step", s.step}, {"outcome", s.outcome}, {"detail", s.detail}});
  return {{"cluster", plan.request.name},
          {"namespace", plan.request.ns},
          {"source", plan.source},
          {"steps", steps},
          {"uid", report.object.is_object() ? report.object["metadata"].value("uid", std::string()) : std::string()}};
}

}  // namespace admin
