// The run of one adoption pipeline on the step engine, and its first steps:
// the prerequisites and the root credentials. The steps of one pipeline
// share the facts earlier steps established (auth disabled by us, the
// password, the new EtcdCluster's uid, the EtcdMembers' uids), and
// crash-safety depends on their order (docs/adoption-design.md). The order,
// the records, the stop between steps and the resumption rule are the step
// engine's (docs/step-engine.md); the safety backup is safety_backup.cc's.
// The etcd steps live in adoption_etcd.cc, the object steps in
// adoption_objects.cc.
#include "migrate/adoption_pipeline.h"

#include <chrono>

#include "base/json_at.h"
#include "kube/base64.h"
#include "migrate/inventory.h"
#include "migrate/ownership.h"
#include "migrate/recorded_facts.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using namespace std::chrono_literals;

namespace {

std::string secret_password(const json& secret) {
  const json* data = base::find_at(secret, "/data");
  if (data == nullptr || !data->contains("password") || !(*data)["password"].is_string()) return {};
  auto decoded = kube::base64_decode((*data)["password"].get<std::string>());
  return decoded ? *decoded : std::string();
}

}  // namespace

Pipeline::Pipeline(kube::Client& client, const AdoptionPlan& plan, std::size_t index, const AdoptRequest& request,
                   const ValidRequest& valid, const ApplyHooks& hooks)
    : k_(client),
      plan_(plan),
      p_(plan.clusters[index]),
      index_(index),
      legacy_(op::LegacyCluster::from(plan.inventory.clusters[index])),
      request_(request),
      valid_(valid),
      hooks_(hooks),
      backup_(client, plan.clusters[index], legacy_, request, valid, hooks) {
  result_.ns = p_.ns;
  result_.name = p_.name;
}

ClusterResult Pipeline::run() {
  if (p_.action != ClusterAction::Adopt) {
    result_.outcome = p_.action == ClusterAction::Adopted ? ClusterOutcome::Adopted : ClusterOutcome::Blocked;
    if (p_.action == ClusterAction::Adopted) {
      result_.steps.push_back("adopted by an earlier run");
      result_.earlier = true;
    }
    return result_;
  }
  pods_reowned_ = pods_have_new_owner();
  auto run = run_steps(pipeline_steps());
  switch (run.end) {
    case base::RunEnd::Finished:
      result_.outcome = ClusterOutcome::Adopted;
      pending_delete_ = true;
      break;
    case base::RunEnd::Stopped:
      result_.outcome = ClusterOutcome::Interrupted;
      restore_auth_if_needed();
      break;
    case base::RunEnd::Failed:
      // The prerequisites step writes nothing (it checks what later steps
      // need, e.g. the backup's bucket): a cluster that fails there was left
      // as it was, which is what Blocked means (exit 3, docs/exit-codes.md).
      result_.outcome = run.at == AdoptionStep::Prerequisites ? ClusterOutcome::Blocked : ClusterOutcome::Failed;
      result_.error = failure(run);
      restore_auth_if_needed();
      break;
  }
  return result_;
}

ClusterResult Pipeline::finish() {
  pending_delete_ = false;
  auto run = run_steps({AdoptionStep::LegacyEtcdCluster});
  if (run.end == base::RunEnd::Stopped) {
    result_.outcome = ClusterOutcome::Interrupted;
  } else if (run.end == base::RunEnd::Failed) {
    result_.outcome = ClusterOutcome::Failed;
    result_.error = failure(run);
  }
  return result_;
}

ClusterResult Pipeline::unfinished() {
  pending_delete_ = false;
  result_.outcome = ClusterOutcome::Interrupted;
  return result_;
}

base::StepRun<AdoptionStep> Pipeline::run_steps(const std::vector<AdoptionStep>& steps) {
  base::StepPolicy policy;
  policy.stop = [this] { return hooks_.stop != nullptr && hooks_.stop->load() != 0; };
  const std::string cluster = p_.ns + "/" + p_.name;
  return base::run_steps<AdoptionStep>(
      steps, [this](AdoptionStep s) { return step(s); }, policy,
      [this, &cluster](const base::StepRecord<AdoptionStep>& r) {
        const std::string name = step_name(r.id);
        result_.steps.push_back(name + (r.answer.acted() ? ": done" : ": already done"));
        if (r.answer.acted()) progress(name + " done");
        if (hooks_.after_step) hooks_.after_step(cluster, name);
      });
}

base::Result<base::StepAnswer> Pipeline::step(AdoptionStep s) {
  switch (s) {
    case AdoptionStep::Prerequisites: return prerequisites();
    case AdoptionStep::RootCredentials: return root_secret();
    case AdoptionStep::Auth: return auth_step();
    case AdoptionStep::Backup: return backup_step();
    case AdoptionStep::EtcdCluster: return cluster_step();
    case AdoptionStep::EtcdMembers: return members_step();
    case AdoptionStep::HeadlessService: return headless_step();
    case AdoptionStep::StatefulSet: return statefulset_step();
    case AdoptionStep::PodsAndPvcs: return reown_step();
    case AdoptionStep::LegacyLeftovers: return leftovers_step();
    case AdoptionStep::Service: return service_step();
    case AdoptionStep::LegacyEtcdCluster: return legacy_delete_step();
  }
  return base::make_error(base::ErrorKind::Failed, std::string("unknown step ") + step_name(s));
}

void Pipeline::progress(const std::string& what) {
  if (hooks_.progress) hooks_.progress(p_.ns + "/" + p_.name + ": " + what);
}

std::string Pipeline::failure(const base::StepRun<AdoptionStep>& run) const {
  std::string part = !failed_part_.empty() ? failed_part_ : run.at ? step_name(*run.at) : "";
  return part + ": " + (run.error ? run.error->one_line() : std::string("failed"));
}

// --- prerequisites and credentials ------------------------------------------
base::Result<base::StepAnswer> Pipeline::prerequisites() {
  // What could fail later is checked before auth is touched (docs/rules.md#auth-restored-on-early-failure).
  if (pods_reowned_ || request_.skip_backup) return Answer::quiet();
  if (auto s = backup_.check(); !s) return std::move(s).error();
  return Answer::quiet();
}

bool Pipeline::pods_have_new_owner() const { return pods_reowned(p_, plan_.inventory); }

base::Result<base::StepAnswer> Pipeline::root_secret() {
  if (!p_.spec_auth) return Answer::quiet();
  const std::string object = "secret \"" + p_.ns + "/" + p_.root_secret_name + "\"";
  if (p_.root_secret) {
    // The plan found none: create it straight away. The answer is the
    // stored object; AlreadyExists (a concurrent run) is read below.
    json secret = *p_.root_secret;
    std::string generated = generate_password();
    if (generated.empty()) return base::make_error(base::ErrorKind::Failed, "no randomness for a password");
    secret["stringData"]["password"] = generated;
    auto created = k_.create(kube::resources::secrets, p_.ns, secret);
    if (created) {
      password_ = secret_password(*created);
      if (password_.empty()) {
        return base::make_error(base::ErrorKind::Failed, "has no password after its creation", object);
      }
      return Answer::did();
    }
    if (!kube::is_already_exists(created.error())) return std::move(created).error();
  }
  // It exists: the stored password is the one that counts.
  auto existing = k_.get(kube::resources::secrets, p_.ns, p_.root_secret_name);
  if (!existing) {
    if (!kube::is_not_found(existing.error())) return std::move(existing).error();
    return base::make_error(base::ErrorKind::Refused, "does not exist", object,
                            "create it with a password key (--auth-secret)");
  }
  password_ = secret_password(*existing);
  if (password_.empty()) {
    return base::make_error(base::ErrorKind::Refused, "has no password", object,
                            "give it a non-empty password key, or delete it to have one generated");
  }
  return Answer::already();
}

}  // namespace migrate
