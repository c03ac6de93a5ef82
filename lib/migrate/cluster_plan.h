// One legacy EtcdCluster's adoption plan (adoption.md §7-§9 with section 0's
// rows and decisions.md E1-E7): the objects to write, the verdicts, and what
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
  Adopted,  // a Terminating legacy EtcdCluster with this tool's marker: done (D18)
  Ignored,  // being deleted by someone else: reported, not planned (D17)
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
  bool spec_auth = false;         // spec.auth produced: root is replaced (E2)
  bool resume = false;            // an earlier run's objects exist (N7)
  bool legacy_pdb = false;        // spec.podDisruptionBudgetTemplate: the legacy operator made a PDB <c>
  // How the legacy client Service is reached from outside ("" when it is a
  // plain ClusterIP Service): replaced with --replace-client-service when it
  // is named <c> (W21), kept as it is otherwise (N14).
  std::string client_service_exposure;

  nlohmann::ordered_json cluster;         // the new EtcdCluster, without status
  nlohmann::ordered_json cluster_status;  // §8.3
  std::vector<std::string> member_names;  // name order
  std::vector<nlohmann::ordered_json> members;          // §8.1 + D9 (owner uid filled at apply)
  std::vector<nlohmann::ordered_json> member_statuses;  // §8.2
  // The generated root credentials Secret, without its password (D11): the
  // password is drawn at apply, only when the Secret does not exist yet.
  std::optional<nlohmann::ordered_json> root_secret;
  std::string root_secret_name;  // spec.auth's Secret, "" without auth

  bool blocked() const { return action == ClusterAction::Error; }
};

ClusterPlan plan_cluster(const op::LegacyCluster& legacy, const ClusterFacts& facts, const PlanOptions& options);

// The EtcdMember D9 owner reference, with the EtcdCluster's uid.
nlohmann::ordered_json member_owner_reference(const std::string& cluster, const std::string& cluster_uid);

nlohmann::ordered_json to_json(const ClusterPlan& plan);

}  // namespace migrate
