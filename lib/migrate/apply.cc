// `etcd-migrate adopt --apply`: one adoption pipeline per cluster
// (adoption_pipeline.h), clusters concurrently, then the legacy webhooks,
// the legacy EtcdClusters' orphan deletes and the legacy backups
// (legacy_cleanup.h); apply_text.cc renders the report.
#include "migrate/apply.h"

#include <openssl/rand.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <memory>
#include <thread>

#include "base/outcome.h"
#include "kube/base64.h"
#include "migrate/adoption_pipeline.h"
#include "migrate/legacy_cleanup.h"

namespace migrate {

const char* outcome_name(ClusterOutcome o) {
  switch (o) {
    case ClusterOutcome::Adopted: return "Adopted";
    case ClusterOutcome::Blocked: return "Blocked";
    case ClusterOutcome::Failed: return "Failed";
    case ClusterOutcome::Interrupted: return "Interrupted";
  }
  return "Failed";
}

std::string generate_password() {
  unsigned char raw[24];
  if (RAND_bytes(raw, sizeof raw) != 1) return {};
  std::string b64 = kube::base64_encode(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
  for (char& ch : b64) {
    if (ch == '+') ch = '-';
    if (ch == '/') ch = '_';
  }
  return b64;
}

ApplyReport apply_plan(kube::Client& client, const AdoptionPlan& plan, const AdoptRequest& request,
                       const ValidRequest& valid, const ApplyHooks& hooks) {
  ApplyReport report;
  report.new_controller = plan.new_controller;
  report.clusters.resize(plan.clusters.size());
  std::vector<std::unique_ptr<Pipeline>> pipelines(plan.clusters.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < plan.clusters.size(); i = next++) {
      pipelines[i] = std::make_unique<Pipeline>(client, plan, i, request, valid, hooks);
      report.clusters[i] = pipelines[i]->run();
    }
  };
  size_t width = std::min<size_t>(plan.clusters.size(), static_cast<size_t>(std::max(1, request.concurrency)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < width; ++t) pool.emplace_back(worker);
  if (width > 0) worker();
  for (auto& t : pool) t.join();
  if (hooks.stop != nullptr) report.signal = hooks.stop->load();
  if (report.signal != 0) {
    for (size_t i = 0; i < pipelines.size(); ++i) {
      if (pipelines[i] && pipelines[i]->pending_delete()) report.clusters[i] = pipelines[i]->unfinished();
    }
    return report;
  }

  // The webhooks first, then the orphan deletes of the legacy EtcdClusters.
  if (!plan.legacy_webhooks.empty() && request.remove_legacy_webhooks) {
    remove_webhooks(client, plan, report.clusters, report);
  }
  for (size_t i = 0; i < pipelines.size(); ++i) {
    if (pipelines[i] && pipelines[i]->pending_delete()) report.clusters[i] = pipelines[i]->finish();
  }
  if (hooks.stop != nullptr) report.signal = hooks.stop->load();
  if (report.signal != 0) return report;

  for (const auto* list : {&plan.backups, &plan.schedules}) {
    for (const auto& b : *list) report.backups.push_back(apply_backup(client, b, report.clusters));
  }
  if (!plan.legacy_webhooks.empty()) terminating_note(plan, report);
  return report;
}

int apply_exit_code(const ApplyReport& report) {
  if (report.signal == SIGINT) return 130;
  if (report.signal == SIGTERM) return 143;
  std::vector<base::Outcome> outcomes;
  for (const auto& c : report.clusters) {
    outcomes.push_back(c.outcome == ClusterOutcome::Adopted   ? base::Outcome::Succeeded
                       : c.outcome == ClusterOutcome::Blocked ? base::Outcome::Blocked
                                                              : base::Outcome::Failed);
  }
  for (const auto& b : report.backups) {
    if (b.outcome == "failed") outcomes.push_back(base::Outcome::Failed);
    else if (b.outcome == "blocked") outcomes.push_back(base::Outcome::Blocked);
  }
  return base::aggregate_exit_code(outcomes);
}

}  // namespace migrate
