// The closing output of --apply (docs/rules.md#one-pipeline-per-cluster,
// docs/rules.md#legacy-webhooks): per
// cluster outcome, what became of auth and the backup, the legacy objects,
// and what to do next; text and JSON carry the same facts.
#include <csignal>
#include <sstream>

#include "migrate/apply.h"
#include "migrate/plan_text.h"

namespace migrate {

using ojson = nlohmann::ordered_json;

namespace {

// Clusters adopted by an earlier run are counted apart: a re-run adopted none of them.
struct Counts {
  size_t adopted = 0, already = 0, blocked = 0, failed = 0, interrupted = 0;
};

Counts count(const ApplyReport& report) {
  Counts n;
  for (const auto& c : report.clusters) {
    switch (c.outcome) {
      case ClusterOutcome::Adopted: ++(c.earlier ? n.already : n.adopted); break;
      case ClusterOutcome::Blocked: ++n.blocked; break;
      case ClusterOutcome::Failed: ++n.failed; break;
      case ClusterOutcome::Interrupted: ++n.interrupted; break;
    }
  }
  return n;
}

}  // namespace

ojson to_json(const ApplyReport& report) {
  ojson clusters = ojson::array();
  for (const auto& c : report.clusters) {
    ojson j = {{"namespace", c.ns}, {"name", c.name}, {"outcome", outcome_name(c.outcome)},
               {"alreadyAdopted", c.earlier}, {"steps", c.steps}};
    if (!c.error.empty()) j["error"] = c.error;
    if (!c.auth.empty()) j["auth"] = c.auth;
    if (!c.backup.empty()) j["backup"] = c.backup;
    if (!c.verdicts.empty()) j["verdicts"] = to_json(c.verdicts);
    clusters.push_back(j);
  }
  ojson backups = ojson::array();
  for (const auto& b : report.backups) {
    ojson j = {{"kind", b.kind}, {"namespace", b.ns}, {"name", b.name}, {"outcome", b.outcome}};
    if (!b.error.empty()) j["error"] = b.error;
    backups.push_back(j);
  }
  const Counts n = count(report);
  ojson j = {{"kind", "AdoptionResult"},
             {"summary",
              {{"adopted", n.adopted},
               {"alreadyAdopted", n.already},
               {"blocked", n.blocked},
               {"failed", n.failed},
               {"interrupted", n.interrupted}}},
             {"clusters", clusters},
             {"backups", backups},
             {"legacyWebhooksRemoved", report.webhooks_removed}};
  if (!report.webhooks_note.empty()) j["legacyWebhooks"] = report.webhooks_note;
  j["legacyTerminating"] = report.legacy_terminating;
  if (!report.end_wait.empty()) j["endWait"] = report.end_wait;
  j["interrupted"] = report.signal == 0 ? ojson(nullptr) : ojson(report.signal == SIGINT ? "SIGINT" : "SIGTERM");
  j["exitCode"] = apply_exit_code(report);
  return j;
}

std::string apply_text(const ApplyReport& report) {
  std::ostringstream out;
  const Counts n = count(report);
  out << "\nresult:\n";
  for (const auto& c : report.clusters) {
    out << "  EtcdCluster " << c.ns << "/" << c.name << ": " << (c.earlier ? "already adopted (by an earlier run)" : outcome_name(c.outcome));
    if (!c.error.empty()) out << ": " << c.error;
    out << "\n";
    if (!c.auth.empty()) out << "    auth: " << c.auth << "\n";
    if (!c.backup.empty()) out << "    backup: " << c.backup << "\n";
    for (const auto& v : c.verdicts) out << "    " << v.id << ": " << v.message << "\n";
  }
  for (const auto& b : report.backups) {
    out << "  " << b.kind << " " << b.ns << "/" << b.name << ": " << b.outcome;
    if (!b.error.empty()) out << ": " << b.error;
    out << "\n";
  }
  out << "\n" << n.adopted << " adopted, " << n.already << " already adopted, " << n.blocked << " blocked, "
      << n.failed << " failed, " << n.interrupted << " interrupted\n";
  if (report.signal != 0) {
    out << "stopped by " << (report.signal == SIGINT ? "SIGINT" : "SIGTERM")
        << " after the step in flight: re-run the same command to finish the clusters not adopted\n";
  } else if (n.failed > 0) {
    out << "re-run the same command to finish the failed clusters once their cause is fixed\n";
  }
  for (const auto& w : report.webhooks_removed) {
    out << "removed the legacy webhook configuration " << w << " (before the legacy EtcdClusters were deleted)\n";
  }
  if (!report.webhooks_note.empty()) out << "legacy webhooks: " << report.webhooks_note << "\n";
  if (!report.legacy_terminating.empty()) {
    std::string names;
    for (const auto& c : report.legacy_terminating) names += (names.empty() ? "" : ", ") + c;
    out << "legacy EtcdClusters left Terminating: " << names << ": " << report.end_wait << "\n";
  }
  if (n.adopted > 0) {
    auto slash = report.new_controller.find('/');
    out << "NEXT: start the new operator: kubectl -n " << report.new_controller.substr(0, slash)
        << " scale deployment " << report.new_controller.substr(slash + 1) << " --replicas=1\n";
  }
  out << "\n" << crd_notice();
  return out.str();
}

}  // namespace migrate
