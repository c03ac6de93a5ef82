#include "admin/snapshot.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "admin/maintenance.h"
#include "backup/file_sink.h"
#include "base/json_at.h"
#include "base/output_path.h"
#include "base/sha256.h"
#include "etcd/member_id.h"
#include "kube/client.h"
#include "operator/agent_result.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

namespace {
using ojson = nlohmann::ordered_json;
using json = nlohmann::json;
}  // namespace

base::Error snapshot_stream_error(base::Error e, const std::string& member, const std::string& path,
                                  std::uint64_t bytes_received) {
  const std::string at = e.object.rfind("endpoint ", 0) == 0 ? e.object.substr(9) : e.object;
  e.object = "member \"" + member + "\"" + (at.empty() || at == member ? "" : " at " + at);
  if (bytes_received > 0 && e.kind != base::ErrorKind::Timeout) {
    // Reached, then lost: not a dial failure (2) but a failed stream (1).
    if (e.kind == base::ErrorKind::CannotConnect) e.kind = base::ErrorKind::Failed;
    e.message = "the snapshot stream broke after " + std::to_string(bytes_received) + " bytes: " + e.message;
    e.hint = "\"" + path + "\" is as it was; run again, or take it from another member with --member";
  }
  return e;
}

base::Status check_snapshot_target(const SnapshotSaveRequest& r) {
  // --overwrite cannot help a device, FIFO, socket, folder or link: that is
  // said first (docs/rules.md#files-the-user-names).
  if (auto s = base::check_output_file(r.path, "give the path of a regular file, or of none yet"); !s) return s;
  if (!r.overwrite && base::path_kind(r.path) != base::PathKind::Absent) {
    return base::make_error(base::ErrorKind::Refused, "the file exists", "file \"" + r.path + "\"",
                           "give --overwrite to replace it");
  }
  return {};
}

base::Result<SnapshotSaveReport> snapshot_save(Session& s, const SnapshotSaveRequest& r,
                                              etcd::SnapshotProgress progress) {
  if (auto st = check_snapshot_target(r); !st) return std::move(st).error();
  // The source: the member asked for, else a healthy voter, preferring a
  // follower (the leader has enough to do).
  auto statuses = status_of_members(s);
  const MemberStatus* src = nullptr;
  for (const auto& m : statuses) {
    if (!r.member.empty()) {
      if (m.member->name == r.member || m.member->endpoint == r.member) src = &m;
      continue;
    }
    if (!m.status || m.status->is_learner || !m.status->errors.empty() || m.status->leader == 0) continue;
    if (!src || (src->status->is_leader() && !m.status->is_leader())) src = &m;
  }
  if (!src) {
    if (!r.member.empty()) return base::make_error(base::ErrorKind::NotFound, "no member \"" + r.member + "\" in the target");
    return base::make_error(base::ErrorKind::CannotConnect, "no healthy member to take the snapshot from");
  }
  if (!src->status) {
    return base::make_error(base::ErrorKind::CannotConnect, src->error, "member \"" + Session::label(*src->member) + "\"");
  }
  auto sink = backup::FileSink::create(r.path);
  if (!sink) return std::move(sink).error();
  std::uint64_t received = 0;
  auto counted = [&received, progress = std::move(progress)](std::uint64_t done, std::uint64_t total) {
    received = done;
    if (progress) progress(done, total);
  };
  auto info = s.etcd->snapshot(src->member->endpoint, **sink, counted, std::nullopt, r.stall_timeout);
  if (!info) return snapshot_stream_error(std::move(info).error(), Session::label(*src->member), r.path, received);
  SnapshotSaveReport out;
  out.path = r.path;
  out.size = info->bytes;
  out.sha256 = info->sha256;
  out.member = Session::label(*src->member);
  out.member_id = src->status->header.member_id;
  out.revision = src->status->header.revision;
  return out;
}

ojson snapshot_save_document(const SnapshotSaveReport& r) {
  ojson j;
  j["path"] = r.path;
  j["size"] = r.size;
  j["sha256"] = r.sha256;
  j["member"] = r.member;
  j["memberID"] = etcd::format_member_id(r.member_id);
  j["revision"] = r.revision;
  return j;
}

output::View snapshot_save_view() {
  output::View v;
  v.columns = {{"PATH", "path"}, {"SIZE", "size", output::Cell::Bytes}, {"SHA256", "sha256"},
               {"MEMBER", "member"}, {"MEMBER ID", "memberID", output::Cell::Text, true}, {"REVISION", "revision"}};
  return v;
}

SnapshotFileReport verify_snapshot_file(const std::string& path) {
  SnapshotFileReport out;
  out.path = path;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    out.error = std::string("cannot open: ") + std::strerror(e);
    const auto kind = e == ENOENT || e == ENOTDIR ? base::ErrorKind::NotFound
                      : e == EACCES || e == EPERM ? base::ErrorKind::PermissionDenied
                                                  : base::ErrorKind::Failed;
    out.cannot_open = base::make_error(kind, out.error, "file \"" + path + "\"",
                                       kind == base::ErrorKind::NotFound ? "check the path" : "");
    return out;
  }
  base::Sha256 sha;
  std::string tail;  // the last (at most) 32 bytes, not hashed yet
  std::vector<char> buf(1 << 20);
  for (;;) {
    ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      out.error = std::string("read failed: ") + std::strerror(errno);
      ::close(fd);
      return out;
    }
    if (n == 0) break;
    out.size += static_cast<std::uint64_t>(n);
    tail.append(buf.data(), static_cast<std::size_t>(n));
    if (tail.size() > 32) {
      sha.update(std::string_view(tail).substr(0, tail.size() - 32));
      tail.erase(0, tail.size() - 32);
    }
  }
  ::close(fd);
  if (out.size % 512 != 32) {
    out.error = "size " + std::to_string(out.size) + " is not a db plus a 32-byte sha256 trailer (size % 512 != 32)";
    return out;
  }
  auto digest = sha.finish();
  out.sha256 = base::to_hex(digest);
  if (std::string(reinterpret_cast<const char*>(digest.data()), digest.size()) != tail) {
    out.error = "the sha256 trailer does not match the data: the file is corrupt or cut short";
    return out;
  }
  out.valid = true;
  return out;
}

ojson snapshot_file_document(const SnapshotFileReport& r) {
  ojson j;
  j["path"] = r.path;
  j["size"] = r.size;
  j["sha256"] = r.sha256;
  j["valid"] = r.valid;
  j["error"] = r.error;
  return j;
}

output::View snapshot_file_view() {
  output::View v;
  v.columns = {{"PATH", "path"}, {"SIZE", "size", output::Cell::Bytes}, {"SHA256", "sha256"}, {"VALID", "valid"},
               {"ERROR", "error"}};
  return v;
}

ojson snapshot_row(const json& cr) {
  ojson j;
  const json st = base::object_at(cr, "/status");
  const json art = base::object_at(st, "/artifact");
  j["name"] = base::string_at(cr, "/metadata/name");
  j["cluster"] = base::string_at(cr, "/spec/clusterRef/name");
  j["phase"] = base::string_at(st, "/phase");
  j["size"] = art.contains("sizeBytes") ? ojson(art["sizeBytes"]) : ojson();
  j["uri"] = base::string_at(art, "/uri");
  j["checksum"] = base::string_at(art, "/checksum");
  auto [reason, message] = last_condition(cr);
  j["reason"] = reason;
  j["message"] = message;
  j["created"] = base::string_at(cr, "/metadata/creationTimestamp");
  return j;
}

base::Result<json> snapshot_cr(const Target& t, const SnapshotCrRequest& r, std::chrono::system_clock::time_point now) {
  if (!t.from_cluster()) {
    return base::make_error(base::ErrorKind::Usage, "--via-cr needs a cluster (-c)", {},
                           "an EtcdSnapshot names its EtcdCluster");
  }
  const bool pvc = !r.pvc.empty();
  const bool s3 = !r.s3_bucket.empty() || !r.s3_endpoint.empty();
  if (pvc == s3) {
    return base::make_error(base::ErrorKind::Usage, "--via-cr needs exactly one destination", {},
                           "--pvc CLAIM [--sub-path P], or --s3-endpoint URL --s3-bucket B --s3-secret NAME");
  }
  json dest;
  if (pvc) {
    dest["pvc"] = {{"claimName", r.pvc}};
    if (!r.sub_path.empty()) dest["pvc"]["subPath"] = r.sub_path;
  } else {
    if (r.s3_endpoint.empty() || r.s3_bucket.empty() || r.s3_secret.empty()) {
      return base::make_error(base::ErrorKind::Usage, "an S3 destination needs --s3-endpoint, --s3-bucket and --s3-secret");
    }
    dest["s3"] = {{"endpoint", r.s3_endpoint}, {"bucket", r.s3_bucket}, {"credentialsSecretRef", {{"name", r.s3_secret}}}};
    if (!r.s3_key.empty()) dest["s3"]["key"] = r.s3_key;
    if (!r.s3_region.empty()) dest["s3"]["region"] = r.s3_region;
    if (r.s3_force_path_style) dest["s3"]["forcePathStyle"] = true;
  }
  return json{{"apiVersion", std::string(op::kApiVersion)},
              {"kind", std::string(op::kKindEtcdSnapshot)},
              {"metadata", {{"name", r.name.empty() ? op::snapshot_cr_name(t.cluster, now) : r.name},
                            {"namespace", t.ns}}},
              {"spec", {{"clusterRef", {{"name", t.cluster}}}, {"destination", dest}}}};
}

namespace {

// What the newest failed pod of the operator's snapshot Job printed last;
// empty when there is none or it cannot be read (the error then names the
// Job to look at).
std::string agent_last_words(kube::Client& kube, const std::string& ns, const std::string& job) {
  kube::ListOptions l;
  l.label_selector = std::string(op::kLabelJobName) + "=" + job;
  auto pods = kube.list(kube::resources::pods, ns, l);
  if (!pods) return {};
  std::string newest, at;
  for (const auto& p : base::array_at(*pods, "/items")) {
    const std::string created = base::string_at(p, "/metadata/creationTimestamp");
    if (base::string_at(p, "/status/phase") == "Failed" && created >= at) {
      at = created;
      newest = base::string_at(p, "/metadata/name");
    }
  }
  if (newest.empty()) return {};
  auto text = kube.pod_log(ns, newest, op::kAgentContainer, 16 * 1024);
  return text ? op::last_log_line(*text) : std::string();
}

}  // namespace

base::Result<ojson> snapshot_via_cr(kube::Client& kube, const Target& t, const SnapshotCrRequest& r,
                                   const PhaseProgress& progress) {
  auto obj = snapshot_cr(t, r, std::chrono::system_clock::now());
  if (!obj) return std::move(obj).error();
  CrRun run;
  run.resource = &op::resources::etcdsnapshots;
  run.object = std::move(*obj);
  const std::string name = base::string_at(run.object, "/metadata/name");
  run.nothing_would = "nothing would ever take the snapshot";
  run.instead = "save it to a file instead";
  run.follow = "`kubectl etcd snapshot status " + name + "`";
  run.handler = "the " + std::string(op::kKindEtcdSnapshot) + " controller of the " + std::string(op::kApiVersion) +
                " operator";
  run.timeout = r.timeout;
  auto done = run_cr(kube, t, run, progress);
  if (!done) return std::move(done).error();
  auto row = snapshot_row(*done);
  if (row["phase"] == "Failed") {
    const std::string job = op::snapshot_job_name(name);
    std::string why = "the snapshot failed: " + row["reason"].get<std::string>() + ": " +
                      row["message"].get<std::string>();
    if (auto said = agent_last_words(kube, t.ns, job); !said.empty()) why += "; its agent said: " + said;
    return base::make_error(base::ErrorKind::Failed, why, op::resources::etcdsnapshots.describe(t.ns, name),
                           "kubectl -n " + t.ns + " logs job/" + job + " tells the whole of it");
  }
  return row;
}

base::Result<ojson> snapshot_list(kube::Client& kube, const std::string& ns, const std::string& cluster) {
  auto l = kube.list_all(op::resources::etcdsnapshots, ns);
  if (!l) return std::move(l).error();
  ojson rows = ojson::array();
  for (const auto& cr : base::array_at(*l, "/items")) {
    auto row = snapshot_row(cr);
    if (!cluster.empty() && row["cluster"] != cluster) continue;
    rows.push_back(std::move(row));
  }
  return rows;
}

base::Result<ojson> snapshot_get(kube::Client& kube, const std::string& ns, const std::string& name) {
  auto cr = kube.get(op::resources::etcdsnapshots, ns, name);
  if (!cr) return std::move(cr).error();
  return snapshot_row(*cr);
}

output::View snapshot_cr_view() {
  output::View v;
  v.columns = {{"NAME", "name"},         {"CLUSTER", "cluster"}, {"PHASE", "phase"},
               {"SIZE", "size", output::Cell::Bytes}, {"URI", "uri"},
               {"CHECKSUM", "checksum", output::Cell::Text, true},
               {"REASON", "reason", output::Cell::Text, true}, {"MESSAGE", "message", output::Cell::Text, true},
               {"AGE", "created", output::Cell::Age}};
  v.empty_message = "no snapshots";
  return v;
}

}  // namespace admin
