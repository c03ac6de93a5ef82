#include "migrate/job_backup.h"

#include <thread>

#include "base/json_at.h"
#include "kube/status_error.h"
#include "migrate/backup_target.h"
#include "operator/backup_names.h"
#include "operator/legacy_cluster.h"

namespace migrate {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

base::Result<std::string> agent_image(kube::Client& client, const AdoptRequest& request,
                                     const Coordinates& new_controller) {
  if (!request.agent_image.empty()) return request.agent_image;
  const std::string object = "deployment \"" + new_controller.text() + "\"";
  auto d = client.get(kube::resources::deployments, new_controller.ns, new_controller.name);
  if (!d) {
    if (d.error().kind == base::ErrorKind::NotFound) {
      return base::make_error(base::ErrorKind::Refused, "does not exist: no snapshot agent image to take", object,
                             "pass --agent-image IMAGE (the new operator's image)");
    }
    return std::move(d).error();
  }
  const json* containers = base::find_at(*d, "/spec/template/spec/containers");
  if (containers == nullptr || !containers->is_array() || containers->empty()) {
    return base::make_error(base::ErrorKind::Refused, "has no containers: no snapshot agent image to take", object,
                           "pass --agent-image IMAGE (the new operator's image)");
  }
  for (const auto& c : *containers) {
    if (base::string_at(c, "/name") == "manager") return base::string_at(c, "/image");
  }
  return base::string_at((*containers)[0], "/image");
}

base::Status check_job_destination(kube::Client& client, const std::string& ns, const AdoptRequest& request) {
  if (!request.pvc_claim.empty()) {
    auto pvc = client.get(kube::resources::persistentvolumeclaims, ns, request.pvc_claim);
    if (pvc) return {};
    if (pvc.error().kind == base::ErrorKind::NotFound) {
      return base::make_error(base::ErrorKind::NotFound, "does not exist",
                             "persistentvolumeclaim \"" + ns + "/" + request.pvc_claim + "\"",
                             "create it in every migrated namespace (--backup-pvc-claim)");
    }
    return std::move(pvc).error();
  }
  // Reads the Secret and checks both keys; the values are dropped at once.
  auto d = s3_destination(client, ns, request);
  if (!d) return std::move(d).error();
  return {};
}

namespace {

bool sleep_or_cancel(const JobBackupOptions& o) {
  auto until = Clock::now() + o.poll;
  while (Clock::now() < until) {
    if (o.cancelled && o.cancelled()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(std::chrono::milliseconds(200), until - Clock::now()));
  }
  return !(o.cancelled && o.cancelled());
}

std::string env_value(const json& job, const std::string& name) {
  const json* cs = base::find_at(job, "/spec/template/spec/containers");
  if (cs == nullptr || !cs->is_array()) return {};
  for (const auto& c : *cs) {
    for (const auto& e : base::array_at(c, "/env")) {
      if (base::string_at(e, "/name") == name && e.contains("value") && e["value"].is_string()) return e["value"];
    }
  }
  return {};
}

// docs/rules.md#backup-job: Complete says the agent exited 0, not where the
// artefact is or what it holds; its result line says both. The log may lag
// the Job's condition a little (the operator retries too).
base::Result<op::AgentResult> read_agent_result(kube::Client& client, const std::string& ns, const json& job,
                                                const JobBackupOptions& o, const std::string& object) {
  kube::ListOptions l;
  l.label_selector = std::string(op::kLabelJobControllerUid) + "=" + base::string_at(job, "/metadata/uid");
  const auto until = Clock::now() + o.result_wait;
  std::string why = "no Pod of it succeeded";
  for (;;) {
    auto pods = client.list(kube::resources::pods, ns, l);
    if (!pods) return std::move(pods).error();
    for (const auto& p : base::array_at(*pods, "/items")) {
      if (base::string_at(p, "/status/phase") != "Succeeded") continue;
      const std::string pod = base::string_at(p, "/metadata/name");
      auto text = client.pod_log(ns, pod, op::kAgentContainer);
      if (!text) {
        if (text.error().kind == base::ErrorKind::PermissionDenied) return std::move(text).error();
        why = "the log of its pod " + pod + " cannot be read: " + text.error().one_line();
        continue;
      }
      if (auto r = op::parse_agent_result(*text)) return *r;
      why = "the log of its pod " + pod + " has no result line of the snapshot agent";
    }
    if (Clock::now() >= until) {
      return base::make_error(base::ErrorKind::Failed, "completed, but " + why, object,
                              "kubectl -n " + ns + " logs job/" + base::string_at(job, "/metadata/name") +
                                  "; the adoption goes on only with the snapshot's location and sha256");
    }
    if (!sleep_or_cancel(o)) {
      return base::make_error(base::ErrorKind::Interrupted, "stopped while reading its result", object);
    }
  }
}

}  // namespace

base::Result<JobBackupResult> run_backup_job(kube::Client& client, const backup::BackupJobSpec& spec,
                                            const JobBackupOptions& o) {
  const json job = backup::backup_job(spec);
  const std::string name = base::string_at(job, "/metadata/name");
  const std::string object = "job \"" + spec.ns + "/" + name + "\"";
  JobBackupResult result{spec.ns + "/" + name, "completed", {}};
  auto interrupted = [&] { return base::make_error(base::ErrorKind::Interrupted, "stopped while waiting", object); };

  bool ours = true;  // created by this call: ours to delete when it cannot succeed
  auto existing = client.get(kube::resources::jobs, spec.ns, name);
  if (existing) {
    const bool same_cluster = env_value(*existing, "SNAPSHOT_UID") == spec.cluster_uid;
    auto v = backup::job_verdict(*existing);
    if (v.phase == backup::JobPhase::Complete && same_cluster) {
      auto a = read_agent_result(client, spec.ns, *existing, o, object);
      if (!a) return std::move(a).error();
      result.how = "reused (it had completed)";
      result.artefact = std::move(*a);
      return result;
    }
    if (v.phase == backup::JobPhase::Running) {
      // docs/rules.md#backup-job: a concurrent invocation's Job (or one a killed run left) is
      // never deleted: its verdict is as good as ours.
      ours = false;
      if (o.progress) o.progress("backup Job " + name + " is already running: waiting for it");
    } else {
      kube::DeleteOptions d;
      d.propagation = kube::Propagation::Foreground;
      auto r = client.remove(kube::resources::jobs, spec.ns, name, d);
      if (!r && r.error().kind != base::ErrorKind::NotFound) return std::move(r).error();
      if (auto w = client.wait_deleted(kube::resources::jobs, spec.ns, name, o.delete_wait); !w) return w.error();
    }
  } else if (existing.error().kind != base::ErrorKind::NotFound) {
    return std::move(existing).error();
  }
  if (ours) {
    auto created = client.create(kube::resources::jobs, spec.ns, job);
    if (!created) {
      if (!kube::is_already_exists(created.error())) return std::move(created).error();
      ours = false;  // a concurrent invocation was faster: wait for its Job
    } else if (o.progress) {
      o.progress("backup Job " + name + " created");
    }
  }

  auto give_up = [&](base::Error e) -> base::Result<JobBackupResult> {
    if (ours && e.kind != base::ErrorKind::Interrupted) {
      // A Job that cannot succeed would be waited for by the re-run.
      kube::DeleteOptions d;
      d.propagation = kube::Propagation::Background;
      (void)client.remove(kube::resources::jobs, spec.ns, name, d);
    } else if (!ours && e.kind != base::ErrorKind::Interrupted) {
      e.hint += std::string(e.hint.empty() ? "" : "; ") + "the Job was not created by this run and is kept: " +
                "kubectl -n " + spec.ns + " delete job " + name + " once no other etcd-migrate runs";
    }
    return e;
  };

  const auto deadline = Clock::now() + o.timeout;
  for (;;) {
    auto j = client.get(kube::resources::jobs, spec.ns, name);
    if (!j) return give_up(std::move(j).error());
    auto v = backup::job_verdict(*j);
    if (v.phase == backup::JobPhase::Complete) {
      auto a = read_agent_result(client, spec.ns, *j, o, object);
      if (!a) return std::move(a).error();
      if (!ours) result.how = "completed (a Job already running)";
      result.artefact = std::move(*a);
      return result;
    }
    if (v.phase == backup::JobPhase::Failed) {
      return give_up(base::make_error(base::ErrorKind::Failed, "failed: " + v.reason, object,
                                     "kubectl -n " + spec.ns + " logs job/" + name));
    }
    kube::ListOptions l;
    l.label_selector = std::string(op::kLabelJobControllerUid) + "=" + base::string_at(*j, "/metadata/uid");
    auto pods = client.list(kube::resources::pods, spec.ns, l);
    if (!pods) return give_up(std::move(pods).error());
    for (const auto& p : base::array_at(*pods, "/items")) {
      std::string why = backup::pod_stuck_reason(p);
      if (!why.empty()) {
        return give_up(base::make_error(base::ErrorKind::Failed,
                                       "its pod " + base::string_at(p, "/metadata/name") + " cannot start: " + why, object,
                                       "fix the cause (the credentials Secret, the PVC, --agent-image) and re-run"));
      }
    }
    if (Clock::now() >= deadline) {
      return give_up(base::make_error(base::ErrorKind::Timeout, "did not finish within --backup-timeout", object,
                                     "give a longer --backup-timeout, or check the Job's pod"));
    }
    if (!sleep_or_cancel(o)) return give_up(interrupted());
  }
}

}  // namespace migrate
