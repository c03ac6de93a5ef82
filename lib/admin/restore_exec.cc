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
#include "base/step_engine.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "kube/status_error.h"
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

// The EtcdCluster, read first: one with this restore source is an earlier
// run's (its answer may have been lost), done; another is refused. A create
// that meets AlreadyExists judges the object it finds the same way.
base::Result<base::StepAnswer> create_cluster(kube::Client& kube, const RestorePlan& plan, nlohmann::json& object) {
  const auto& r = plan.request;
  auto judge = [&](nlohmann::json existing) -> base::Result<base::StepAnswer> {
    const auto* bootstrap = base::find_at(existing, "/spec/bootstrap");
    const json wanted = json(plan.object);
    const auto* want = base::find_at(wanted, "/spec/bootstrap");
    if (bootstrap == nullptr || want == nullptr || *bootstrap != *want) {
      return base::make_error(base::ErrorKind::Refused, "already exists, not restored from " + plan.source,
                              op::resources::etcdclusters.describe(r.ns, r.name), "choose another name");
    }
    object = std::move(existing);
    return base::StepAnswer::already("created by an earlier run, uid " + base::string_at(object, "/metadata/uid"));
  };
  auto existing = kube.get(op::resources::etcdclusters, r.ns, r.name);
  if (existing) return judge(std::move(*existing));
  if (!kube::is_not_found(existing.error())) return std::move(existing).error();
  auto created = kube.create(op::resources::etcdclusters, r.ns, json(plan.object));
  if (!created && kube::is_already_exists(created.error())) {
    auto again = kube.get(op::resources::etcdclusters, r.ns, r.name);
    if (!again) return std::move(again).error();
    return judge(std::move(*again));
  }
  if (!created) return std::move(created).error();
  object = std::move(*created);
  return base::StepAnswer::did("uid " + base::string_at(object, "/metadata/uid"));
}

}  // namespace

base::Result<RestoreReport> execute_restore(kube::Client& kube, const RestorePlan& plan, const RestoreHooks& hooks) {
  auto check = check_restore(kube, plan);
  if (!check) return std::move(check).error();
  if (plan.refused() || check->refused()) return restore_refusal(plan, *check);
  // The checks read everything (a refusal they find writes nothing); the
  // engine then runs the plan: a check answers what it found, the two
  // writes read again and answer done when an earlier run made them.
  std::vector<RestoreStepId> ids;
  for (const auto& s : plan.steps) ids.push_back(s.id);
  auto checked = [&](RestoreStepId id) -> const RestoreStepResult* {
    for (const auto& r : check->steps) {
      if (r.step == id) return &r;
    }
    return nullptr;
  };
  RestoreReport report;
  auto step = [&](RestoreStepId id) -> base::Result<base::StepAnswer> {
    switch (id) {
      case RestoreStepId::Upload:
        if (check->uploaded) return base::StepAnswer::already(checked(id)->detail);
        if (auto u = upload_file(plan, *check, hooks); !u) return std::move(u).error();
        return base::StepAnswer::did(checked(id)->detail);
      case RestoreStepId::Create: return create_cluster(kube, plan, report.object);
      case RestoreStepId::VerifyFile:
      case RestoreStepId::ReadCredentials:
      case RestoreStepId::CheckObject:
      case RestoreStepId::CheckPvc:
      case RestoreStepId::ServerDryRun: {
        const auto* c = checked(id);
        if (c == nullptr) return base::make_error(base::ErrorKind::Failed, std::string("step ") + restore_step_name(id) + " was not checked");
        return base::StepAnswer::already(c->detail);
      }
    }
    return base::make_error(base::ErrorKind::Failed, std::string("unknown step ") + restore_step_name(id));
  };
  auto run = base::run_steps<RestoreStepId>(ids, step, {}, [&](const base::StepRecord<RestoreStepId>& r) {
    const auto* c = checked(r.id);
    const bool write = r.id == RestoreStepId::Upload || r.id == RestoreStepId::Create;
    // A check reports its own finding (server-dry-run "did" its dry-run).
    RestoreStepResult out = write || c == nullptr ? RestoreStepResult{r.id, r.answer.acted() ? "did" : "done", r.answer.detail}
                                                  : *c;
    if (hooks.step_done) hooks.step_done(out);
    report.steps.push_back(std::move(out));
  });
  if (!run.finished()) {
    if (run.error) return std::move(*run.error);
    return base::make_error(base::ErrorKind::Interrupted, "stopped between two steps", {}, "re-run to finish");
  }
  return report;
}

nlohmann::ordered_json restore_report_document(const RestorePlan& plan, const RestoreReport& report) {
  nlohmann::ordered_json steps = nlohmann::ordered_json::array();
  for (const auto& s : report.steps) steps.push_back({{"step", restore_step_name(s.step)}, {"outcome", s.outcome}, {"detail", s.detail}});
  return {{"cluster", plan.request.name},
          {"namespace", plan.request.ns},
          {"source", plan.source},
          {"steps", steps},
          {"uid", base::string_at(report.object, "/metadata/uid")}};
}

}  // namespace admin
