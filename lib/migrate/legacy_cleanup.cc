#include "migrate/legacy_cleanup.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "base/json_at.h"
#include "migrate/inventory.h"
#include "migrate/legacy_webhooks.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace migrate {

using json = nlohmann::json;

BackupResult apply_backup(kube::Client& k, const BackupPlan& b, const std::vector<ClusterResult>& clusters) {
  BackupResult r{b.kind, b.ns, b.name, "", ""};
  switch (b.action) {
    case BackupAction::Keep: r.outcome = "kept"; return r;
    case BackupAction::Wait: r.outcome = "waiting"; return r;
    case BackupAction::Print: r.outcome = "printed"; return r;
    case BackupAction::Error: r.outcome = "blocked"; return r;
    case BackupAction::Create:
    case BackupAction::Skip: break;
  }
  // docs/rules.md#legacy-backups: only for a cluster adopted in this run (or earlier).
  for (const auto& c : clusters) {
    if (c.ns == b.ns && c.name == b.cluster && c.outcome != ClusterOutcome::Adopted) {
      r.outcome = "waiting";
      r.error = "its cluster was not adopted in this run";
      return r;
    }
  }
  if (b.action == BackupAction::Create) {
    auto created = k.create(op::resources::etcdsnapshots, b.ns, json(b.objects.front()));
    if (!created && !kube::is_already_exists(created.error())) {
      r.outcome = "failed";
      r.error = created.error().one_line();
      return r;
    }
  }
  kube::DeleteOptions o;
  o.propagation = kube::Propagation::Background;
  auto del = k.remove(op::resources::legacy_etcdbackups, b.ns, b.name, o);
  if (!del && !kube::is_not_found(del.error())) {
    r.outcome = "failed";
    r.error = del.error().one_line();
    return r;
  }
  r.outcome = b.action == BackupAction::Create ? "created" : "skipped";
  return r;
}

void remove_webhooks(kube::Client& k, const AdoptionPlan& plan, const std::vector<ClusterResult>& results,
                     ApplyReport& report) {
  auto legacy = k.list_all(op::resources::legacy_etcdclusters, "");
  if (!legacy) {
    report.webhooks_note = "kept: cannot list legacy EtcdClusters: " + legacy.error().one_line();
    return;
  }
  auto fresh = k.list_all(op::resources::etcdclusters, "");
  if (!fresh) {
    report.webhooks_note = "kept: cannot list EtcdClusters: " + fresh.error().one_line();
    return;
  }
  auto run_index = [&](const json& l) -> std::optional<size_t> {
    for (size_t i = 0; i < plan.clusters.size(); ++i) {
      if (plan.clusters[i].ns == base::string_at(l, "/metadata/namespace") &&
          plan.clusters[i].name == base::string_at(l, "/metadata/name") &&
          plan.clusters[i].legacy_uid == base::string_at(l, "/metadata/uid")) {
        return i;
      }
    }
    return std::nullopt;
  };
  auto adopted = [&](const json& l) {
    if (auto i = run_index(l); i && results[*i].outcome == ClusterOutcome::Adopted) return true;
    std::string ns = base::string_at(l, "/metadata/namespace"), name = base::string_at(l, "/metadata/name");
    if (base::find_at(l, "/metadata/deletionTimestamp") == nullptr) return false;
    for (const auto& f : base::array_at(*fresh, "/items")) {
      if (base::string_at(f, "/metadata/namespace") == ns && base::string_at(f, "/metadata/name") == name) {
        return op::annotation(f, op::kAnnAdoptedFrom) == base::string_at(l, "/metadata/uid");
      }
    }
    return false;
  };
  std::vector<std::pair<std::string, json>> configs;
  for (size_t i = 0; i < plan.legacy_webhooks.size() && i < plan.inventory.legacy_webhook_objects.size(); ++i) {
    configs.emplace_back(plan.legacy_webhooks[i], plan.inventory.legacy_webhook_objects[i]);
  }
  const json& listed = base::array_at(*legacy, "/items");
  std::vector<json> items(listed.begin(), listed.end());
  WebhookDecision d = decide_webhook_removal(configs, items, [&](const json& l) { return run_index(l).has_value(); },
                                             adopted);
  report.webhooks_note = d.reason;
  for (const auto& w : d.remove) {
    auto slash = w.find('/');
    const kube::Resource& r = w.substr(0, slash) == op::resources::mutating_webhooks.plural
                                  ? op::resources::mutating_webhooks
                                  : op::resources::validating_webhooks;
    auto res = k.remove(r, "", w.substr(slash + 1));
    if (res || kube::is_not_found(res.error())) report.webhooks_removed.push_back(w);
    else report.webhooks_note = "removing " + w + " failed: " + res.error().one_line();
  }
}

void terminating_note(const AdoptionPlan& plan, ApplyReport& report) {
  std::vector<std::string> remaining;  // the configurations not removed
  for (const auto& w : plan.legacy_webhooks) {
    if (std::find(report.webhooks_removed.begin(), report.webhooks_removed.end(), w) == report.webhooks_removed.end()) {
      remaining.push_back(w);
    }
  }
  std::vector<std::string> covering;
  for (size_t i = 0; i < plan.clusters.size(); ++i) {
    const ClusterResult& r = report.clusters[i];
    if (r.outcome != ClusterOutcome::Adopted) continue;
    const json& l = plan.inventory.clusters[i];
    bool earlier = plan.clusters[i].action == ClusterAction::Adopted;
    bool behind = false;
    for (size_t w = 0; w < plan.legacy_webhooks.size() && w < plan.inventory.legacy_webhook_objects.size(); ++w) {
      if (std::find(remaining.begin(), remaining.end(), plan.legacy_webhooks[w]) == remaining.end()) continue;
      if (!webhook_covers(plan.inventory.legacy_webhook_objects[w], l)) continue;
      behind = true;
      if (std::find(covering.begin(), covering.end(), plan.legacy_webhooks[w]) == covering.end()) {
        covering.push_back(plan.legacy_webhooks[w]);
      }
    }
    // Adopted by an earlier run while the webhooks refused: the collector
    // is on its backoff even once they are gone.
    bool removed_late = earlier && !report.webhooks_removed.empty();
    if (behind || removed_late) report.legacy_terminating.push_back(r.ns + "/" + r.name);
  }
  if (report.legacy_terminating.empty()) return;
  std::string text;
  if (!covering.empty()) {
    std::string names;
    for (const auto& w : covering) names += " " + w;
    text = "they stay Terminating while the legacy webhook configurations" + names +
           " refuse the garbage collector's removal of their orphan finalizer. To end the wait: kubectl delete" + names +
           (report.webhooks_removed.empty() && !plan.legacy_webhooks.empty()
                ? " (or re-run with --remove-legacy-webhooks once every legacy EtcdCluster they cover is adopted)"
                : "") +
           "; ";
  } else {
    text = "the legacy webhook configurations that refused the garbage collector are gone; ";
  }
  std::string ns = "NAMESPACE", name = "NAME";
  if (report.legacy_terminating.size() == 1) {
    const std::string& only = report.legacy_terminating.front();
    ns = only.substr(0, only.find('/'));
    name = only.substr(only.find('/') + 1);
  }
  text += "the collector retries on its backoff, which reaches about 17 minutes after repeated refusals; to end "
          "it at once once the webhooks are gone, drop the finalizer (the collector already released what the "
          "object owned on its first try): kubectl -n " + ns + " patch etcdclusters." +
          std::string(op::kLegacyGroup) + " " + name + " --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'";
  report.end_wait = text;
}

}  // namespace migrate
