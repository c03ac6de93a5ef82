// `etcd-migrate adopt --apply` (docs/adoption-design.md, the write
// half): executes an AdoptionPlan, one pipeline per
// cluster, clusters concurrently. Each step reads the live state and
// decides "done / do it / cannot", so a run stopped anywhere (Ctrl-C, kill,
// a failure) is finished by the next run. Nothing here prints.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kube/client.h"
#include "migrate/adoption_plan.h"
#include "migrate/request.h"

namespace migrate {

enum class ClusterOutcome {
  Adopted,      // every step done (this run or an earlier one)
  Blocked,      // the plan was blocked: nothing was written
  Failed,       // a step failed; the steps before it stay done, a re-run resumes
  Interrupted,  // stopped by a signal between two steps; a re-run resumes
};
const char* outcome_name(ClusterOutcome o);

struct ClusterResult {
  std::string ns, name;
  ClusterOutcome outcome = ClusterOutcome::Blocked;
  std::vector<std::string> steps;  // "step: done|did" in order
  std::string error;               // the failing step's error, one line
  std::string auth;                // what became of auth, "" when untouched
  std::string backup;              // where the safety snapshot went, or why none
  std::vector<Verdict> verdicts;   // runtime ones (R3)
  bool earlier = false;            // Adopted by an earlier run: counted and shown apart ("already adopted")
};

struct BackupResult {
  std::string kind, ns, name;
  std::string outcome;  // "created", "skipped", "kept", "waiting", "printed", "failed"
  std::string error;
};

struct ApplyReport {
  std::vector<ClusterResult> clusters;
  std::vector<BackupResult> backups;
  std::vector<std::string> webhooks_removed;  // before the legacy EtcdClusters were orphan-deleted
  std::string webhooks_note;  // why (some of) the legacy webhooks were kept with --remove-legacy-webhooks
  // Adopted legacy EtcdClusters ("<ns>/<name>") left Terminating behind the
  // legacy webhooks (or the collector's backoff), and how to end the wait.
  std::vector<std::string> legacy_terminating;
  std::string end_wait;
  int signal = 0;             // SIGINT/SIGTERM that stopped the run, 0 when none
  std::string new_controller;
};

struct ApplyHooks {
  // Progress for stderr: "<ns>/<c>: <what>".
  std::function<void(const std::string&)> progress;
  // A transient progress of a cluster's safety backup (bytes streamed from
  // `endpoint`; total 0 while unknown), for an overprinted line.
  std::function<void(const std::string& cluster, const std::string& endpoint, std::uint64_t done,
                     std::uint64_t total)>
      transfer;
  // Called after each recorded step (done or already done; a test seam for crash tests).
  std::function<void(const std::string& cluster, const std::string& step)> after_step;
  // Set by the program's signal handler; checked between steps.
  const std::atomic<int>* stop = nullptr;
};

ApplyReport apply_plan(kube::Client& client, const AdoptionPlan& plan, const AdoptRequest& request,
                       const ValidRequest& valid, const ApplyHooks& hooks);

// docs/exit-codes.md: 130/143 after a signal, else 0 / 5 / 3 / 1 over the cluster and backup outcomes.
int apply_exit_code(const ApplyReport& report);

nlohmann::ordered_json to_json(const ApplyReport& report);
std::string apply_text(const ApplyReport& report);

// A random password for a generated root credentials Secret (docs/rules.md#root-password-never-printed).
std::string generate_password();

}  // namespace migrate
