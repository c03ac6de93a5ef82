// One legacy EtcdCluster's adoption plan (docs/rules.md, "Adoption"):
// the objects to write, the verdicts, and what
// the apply pipeline must do. A plain value: printed, diffed and golden-tested
// without servers; `--apply` executes exactly this.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "migrate/facts.h"
#include "migrate/verdict.h"
#include "operator/legacy_cluster.h"

namespace migrate {

enum class ClusterAction {
  Adopt,    // live legacy cluster, adopted in place (also a re-run finishing one)
  Error,    // blocked: nothing is written for it
  Adopted,  // a Terminating legacy EtcdCluster with this tool's marker: done (docs/rules.md#resumable-adoption)
  Ignored,  // being deleted by someone else: reported, not planned (docs/rules.md#smaller-gaps-closed)
};
const char* action_name(ClusterAction a);

struct ClusterPlan {
  std::string ns;
  std::string name;
  std::string legacy_uid;
  std::string headless_service;  // <hl>
  std::string client_service;    // <cs>
  ClusterAction action = ClusterAction::Adopt;
  std::vector<Verdict> verdicts;  // plan order
  std::string cluster_id;         // 16 hex digits
  bool live_auth = false;         // auth is on in etcd: the auth step disables it
  bool spec_auth = false;         // spec.auth produced: root is replaced (docs/rules.md#root-user-replaced)
  bool resume = false;            // an earlier run's objects exist (N7)
  bool legacy_pdb = false;        // spec.podDisruptionBudgetTemplate: the legacy operator made a PDB <c>
  // How the legacy client Service is reached from outside ("" when it is a
  // plain ClusterIP Service): replaced with --replace-client-service when it
  // is named <c> (W21), kept as it is otherwise (N14).
  std::string client_service_exposure;

  nlohmann::ordered_json cluster;         // the new EtcdCluster, without status
  nlohmann::ordered_json cluster_status;  // docs/rules.md#status-prefill
  std::vector<std::string> member_names;  // name order
  std::vector<nlohmann::ordered_json> members;          // docs/rules.md#adopted-members (owner uid filled at apply)
  std::vector<nlohmann::ordered_json> member_statuses;  // their status prefill
  // The generated root credentials Secret, without its password (docs/rules.md#root-password-never-printed): the
  // password is drawn at apply, only when the Secret does not exist yet.
  std::optional<nlohmann::ordered_json> root_secret;
  std::string root_secret_name;  // spec.auth's Secret, "" without auth

  bool blocked() const { return action == ClusterAction::Error; }
};

ClusterPlan plan_cluster(const op::LegacyCluster& legacy, const ClusterFacts& facts, const PlanOptions& options);

// The EtcdMember's controller owner reference, with the EtcdCluster's uid.
nlohmann::ordered_json member_owner_reference(const std::string& cluster, const std::string& cluster_uid);

nlohmann::ordered_json to_json(const ClusterPlan& plan);

}  // namespace migrate
