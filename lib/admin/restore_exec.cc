#include "admin/restore_exec.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "backup/s3_sink.h"
#include "base/json_at.h"
#include "base/sha256.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

namespace {

using json = nlohmann::json;

backup::S3Location location_of(const RestoreRequest& r) {
  backup::S3Location l;
  l.endpoint = r.s3_endpoint;
  l.bucket = r.s3_bucket;
  l.region = r.s3_region;
  l.force_path_style = r.s3_force_path_style;
  return l;
}

// Streams the file into the object, its db sha256 in the metadata.
base::Status upload_file(const RestorePlan& p, const RestoreCheck& st, const RestoreHooks& hooks) {
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

}  // namespace

base::Result<RestoreReport> execute_restore(kube::Client& kube, const RestorePlan& plan, const RestoreHooks& hooks) {
  auto check = check_restore(kube, plan);
  if (!check) return std::move(check).error();
  if (plan.refused() || check->refused()) return restore_refusal(plan, *check);
  RestoreReport report;
  auto record = [&](RestoreStepResult r) {
    if (hooks.step_done) hooks.step_done(r);
    report.steps.push_back(std::move(r));
  };
  // The checks read everything; what is left is the two writes.
  for (auto& step : check->steps) {
    if (step.outcome != "pending") {
      if (step.step == "create") report.object = check->cluster;
      record(std::move(step));
    } else if (step.step == "upload") {
      if (auto u = upload_file(plan, *check, hooks); !u) return std::move(u).error();
      record({step.step, "did", step.detail});
    } else if (step.step == "create") {
      auto created = kube.create(op::resources::etcdclusters, plan.request.ns, nlohmann::json(plan.object));
      if (!created) return std::move(created).error();
      report.object = std::move(*created);
      record({step.step, "did", "uid " + base::string_at(report.object, "/metadata/uid")});
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
          {"uid", report.object.is_object() ? base::string_at(report.object, "/metadata/uid") : std::string()}};
}

}  // namespace admin
