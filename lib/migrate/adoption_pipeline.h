// One legacy cluster's adoption (docs/adoption-design.md, the write half):
// the steps of migrate::pipeline_steps() run on the step engine
// (docs/step-engine.md), each reading live state and answering already done
// / did it / cannot, so a run stopped anywhere is finished by the next run.
// apply_plan runs one pipeline per cluster, concurrently, and the last step
// (the legacy EtcdCluster's orphan delete) once every pipeline got there.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/step_engine.h"
#include "etcd/client.h"
#include "kube/client.h"
#include "migrate/adoption_plan.h"
#include "migrate/adoption_step.h"
#include "migrate/apply.h"
#include "migrate/inspect.h"
#include "migrate/request.h"
#include "migrate/safety_backup.h"
#include "operator/legacy_cluster.h"

namespace migrate {

class Pipeline {
 public:
  Pipeline(kube::Client& client, const AdoptionPlan& plan, std::size_t index, const AdoptRequest& request,
           const ValidRequest& valid, const ApplyHooks& hooks);

  // Every step up to the last; Adopted leaves the last step pending.
  ClusterResult run();
  // The last step, once every pipeline of the run got that far: the legacy
  // webhooks that would refuse the garbage collector's finalizer removal may
  // go first.
  bool pending_delete() const { return pending_delete_; }
  ClusterResult finish();
  // Stopped by a signal before the last step: a re-run does it.
  ClusterResult unfinished();

 private:
  using Answer = base::StepAnswer;
  using MemberUids = std::vector<std::pair<std::string, std::string>>;  // EtcdMember name, uid

  base::StepRun<AdoptionStep> run_steps(const std::vector<AdoptionStep>& steps);
  base::Result<Answer> step(AdoptionStep s);
  void progress(const std::string& what);
  // The error of a run that failed, as the summary shows it: "<step>: <error>".
  std::string failure(const base::StepRun<AdoptionStep>& run) const;

  base::Result<Answer> prerequisites();
  base::Result<Answer> root_secret();
  base::Result<Answer> auth_step();
  base::Result<Answer> backup_step();
  base::Result<Answer> cluster_step();
  base::Result<Answer> members_step();
  base::Result<Answer> headless_step();
  base::Result<Answer> statefulset_step();
  base::Result<Answer> reown_step();
  base::Result<Answer> leftovers_step();
  base::Result<Answer> service_step();
  base::Result<Answer> legacy_delete_step();

  bool pods_have_new_owner() const;
  base::Result<etcd::Client*> etcd_client();
  base::Result<nlohmann::ordered_json> adoption_facts();
  base::Result<bool> set_service_owners(const std::string& name, const nlohmann::json* known,
                                        const std::function<nlohmann::json(const nlohmann::json&)>& owners);
  void restore_auth_if_needed();

  kube::Client& k_;
  const AdoptionPlan& plan_;
  const ClusterPlan& p_;
  std::size_t index_;
  op::LegacyCluster legacy_;
  const AdoptRequest& request_;
  const ValidRequest& valid_;
  const ApplyHooks& hooks_;
  SafetyBackup backup_;
  ClusterResult result_;
  // What earlier steps established, learnt again from live state on a re-run.
  bool pods_reowned_ = false;
  std::string password_;
  std::unique_ptr<etcd::Client> etcd_;
  std::vector<EtcdTarget> targets_;
  nlohmann::json cluster_;
  std::string cluster_uid_;
  MemberUids member_uids_;
  bool auth_disabled_by_us_ = false;
  bool pending_delete_ = false;
  // A helper that failed inside a step names itself in the error instead
  // ("connect to etcd", "record adoption facts").
  std::string failed_part_;
};

}  // namespace migrate
