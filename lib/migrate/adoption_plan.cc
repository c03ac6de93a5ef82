#include "migrate/adoption_plan.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "base/json_at.h"
#include "migrate/dry_run.h"
#include "migrate/inspect.h"
#include "migrate/plan_text.h"
#include "migrate/safety_backup.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

size_t AdoptionPlan::blocked() const {
  size_t n = 0;
  for (const auto& c : clusters) n += c.blocked() ? 1 : 0;
  for (const auto& b : backups) n += b.action == BackupAction::Error ? 1 : 0;
  for (const auto& s : schedules) n += s.action == BackupAction::Error ? 1 : 0;
  return n;
}

namespace {

// Runs fn(i) for i in [0, n) on at most `width` threads.
void for_each_bounded(size_t n, int width, const std::function<void(size_t)>& fn) {
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) fn(i);
  };
  size_t threads = std::min<size_t>(n, static_cast<size_t>(std::max(1, width)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  if (threads > 0) worker();
  for (auto& t : pool) t.join();
}

ClusterState cluster_state(const AdoptionPlan& plan, const std::string& ns, const std::string& name) {
  for (const auto& c : plan.clusters) {
    if (c.ns != ns || c.name != name) continue;
    if (c.action == ClusterAction::Adopted) return ClusterState::AdoptedBefore;
    // A dry-run shows what this run would do: its pending backups convert.
    if (c.action == ClusterAction::Adopt) return ClusterState::AdoptedNow;
    return ClusterState::NotAdopted;
  }
  // No legacy cluster left: adopted earlier if our marker is on a new one.
  if (const json* nc = find_object(plan.inventory.new_clusters, ns, name)) {
    const json* ann = base::find_at(*nc, "/metadata/annotations");
    if (ann != nullptr && ann->is_object() && ann->contains(std::string(op::kAnnAdoptedFrom))) {
      return ClusterState::AdoptedBefore;
    }
  }
  return ClusterState::NotAdopted;
}

}  // namespace

base::Result<AdoptionPlan> plan_adoption(kube::Client& client, const AdoptRequest& request, const ValidRequest& valid,
                                        const ProgressFn& progress) {
  AdoptionPlan plan;
  plan.apply = request.apply;
  plan.scope = request.kube.ns;
  plan.legacy_controller = valid.legacy_controller.text();
  plan.new_controller = valid.new_controller.text();

  if (request.skip_controller_check) {
    plan.gate.skipped = true;
  } else {
    auto gate = check_controllers(client, valid.legacy_controller, valid.new_controller, plan.scope);
    if (!gate) return gate.error();
    plan.gate = std::move(*gate);
    if (!plan.gate.quiet()) {
      if (request.apply) {
        return base::make_error(base::ErrorKind::Refused, "the operators are not quiet: " + plan.gate.findings.front(),
                               {}, plan.gate.findings.size() > 1 ? "and " + std::to_string(plan.gate.findings.size() - 1) + " more (see the dry-run)" : "");
      }
      for (const auto& f : plan.gate.findings) plan.verdicts.push_back({"W19", f + " (--apply refuses until it is)"});
    }
  }
  if (progress) {
    for (const auto& line : gate_lines(plan)) progress(line);
  }

  auto inventory = discover(client, plan.scope);
  if (!inventory) return inventory.error();
  plan.inventory = std::move(*inventory);
  plan.found_clusters = plan.inventory.clusters.size();
  plan.found_backups = plan.inventory.backups.size();
  plan.found_schedules = plan.inventory.schedules.size();
  if (progress) progress(discovery_line(plan));
  if (plan.nothing_to_migrate()) return plan;

  std::string warning;
  if (auto s = read_scope(client, plan.inventory, warning); !s) return s.error();
  if (!warning.empty()) plan.warnings.push_back(warning);
  if (!plan.inventory.new_api_missing.empty()) {
    std::string missing;
    for (const auto& m : plan.inventory.new_api_missing) missing += (missing.empty() ? "" : ", ") + m;
    return base::make_error(base::ErrorKind::Refused, "the etcd operator's API " + std::string(op::kApiVersion) +
                                                        " is not served (missing: " + missing + ")",
                           {}, "install the etcd operator's v1alpha2 CRDs first");
  }
  plan.legacy_webhooks = plan.inventory.legacy_webhooks;

  // Inspection and planning, one cluster per worker (bounded).
  PlanOptions options;
  options.version_override = request.version;
  options.auth_secret = request.auth_secret;
  options.skip_backup = request.skip_backup;
  options.backup_configured = valid.backup_configured;
  options.replace_client_service = request.replace_client_service;
  InspectOptions inspect_options;
  inspect_options.auth_secret = request.auth_secret;
  if (valid.connect == Connect::PortForward) {
    inspect_options.forwards = std::make_shared<kube::PortForwards>(client.shared_transport());
  }

  const auto& legacy_objects = plan.inventory.clusters;
  plan.clusters.resize(legacy_objects.size());
  plan.inspected.resize(legacy_objects.size());
  plan.legacy_tls.resize(legacy_objects.size());
  for_each_bounded(legacy_objects.size(), request.concurrency, [&](size_t i) {
    op::LegacyCluster legacy = op::LegacyCluster::from(legacy_objects[i]);
    ClusterFacts facts;
    if (!legacy.deleting) {
      if (progress) progress("inspecting " + legacy.ns + "/" + legacy.name);
      facts = inspect_cluster(client, legacy, plan.inventory, inspect_options);
    } else if (const json* nc = find_object(plan.inventory.new_clusters, legacy.ns, legacy.name)) {
      facts.new_cluster = *nc;
    }
    ClusterPlan cp = plan_cluster(legacy, facts, options);
    dry_run_cluster(client, plan.inventory, cp);
    // The backup's destinations, as --apply's prerequisites step checks
    // them (docs/rules.md#dry-run-checks-what-the-run-checks).
    if (backup_destination_checked(cp, plan.inventory, request, valid)) {
      if (auto d = check_backup_destination(client, cp, request, valid); !d) {
        block_cluster(cp, {{"B22", "the safety backup's destination does not answer: " + d.error().one_line()}});
      }
    }
    InspectionLine line{legacy.ns, legacy.name, !legacy.deleting && !facts.inspect_error && !facts.members.empty(),
                        facts.cluster_id, facts.members.size(), facts.live_auth};
    if (progress && line.ok) progress(inspection_line(line));
    plan.inspected[i] = line;
    plan.legacy_tls[i] = std::move(facts.tls);
    plan.clusters[i] = std::move(cp);
  });

  // Only a plan that adopts something leaves legacy EtcdClusters Terminating.
  bool adopts = std::any_of(plan.clusters.begin(), plan.clusters.end(), [](const ClusterPlan& c) {
    return c.action == ClusterAction::Adopt || c.action == ClusterAction::Adopted;
  });
  if (!plan.legacy_webhooks.empty() && adopts) {
    std::string names;
    for (const auto& w : plan.legacy_webhooks) names += (names.empty() ? "" : " ") + w;
    plan.verdicts.push_back({"N11", "the legacy operator's webhook configurations reject every write to legacy "
                                    "EtcdClusters while it is down; adopted legacy EtcdClusters stay Terminating while "
                                    "one covers them (kubectl delete " + names +
                                    "; or --remove-legacy-webhooks, which removes those that cover only adopted "
                                    "clusters before the legacy EtcdClusters are deleted)"});
  }

  BackupPlanOptions backup_options;
  backup_options.convert_completed = request.convert_completed_backups;
  backup_options.schedule_image =
      request.schedule_image.empty() ? std::string(op::kDefaultScheduleImage) : request.schedule_image;
  for (const auto& b : plan.inventory.backups) {
    std::string ns = base::string_at(b, "/metadata/namespace"), name = base::string_at(b, "/metadata/name");
    if (base::find_at(b, "/metadata/deletionTimestamp") != nullptr) continue;
    bool exists = find_object(plan.inventory.snapshots, ns, name) != nullptr;
    BackupPlan bp = plan_backup(b, exists, cluster_state(plan, ns, base::string_at(b, "/spec/clusterRef/name")),
                                backup_options);
    dry_run_backup(client, bp);
    plan.backups.push_back(std::move(bp));
  }
  for (const auto& s : plan.inventory.schedules) {
    if (base::find_at(s, "/metadata/deletionTimestamp") != nullptr) continue;
    plan.schedules.push_back(plan_schedule(s, backup_options));
  }
  return plan;
}

int dry_run_exit_code(const AdoptionPlan& plan) { return plan.blocked() > 0 ? 3 : 0; }

ojson to_json(const AdoptionPlan& plan) {
  ojson gate = {{"skipped", plan.gate.skipped},
                {"legacyController", plan.legacy_controller},
                {"newController", plan.new_controller},
                {"quiet", plan.gate.quiet()},
                {"findings", plan.gate.findings}};
  ojson inspected = ojson::array();
  for (const auto& l : plan.inspected) {
    ojson j = {{"namespace", l.ns}, {"name", l.name}, {"ok", l.ok}};
    if (l.ok) {
      j["clusterID"] = l.cluster_id;
      j["members"] = l.members;
      j["liveAuth"] = l.live_auth;
    }
    inspected.push_back(j);
  }
  ojson clusters = ojson::array(), backups = ojson::array(), schedules = ojson::array();
  for (const auto& c : plan.clusters) clusters.push_back(to_json(c));
  for (const auto& b : plan.backups) backups.push_back(to_json(b));
  for (const auto& s : plan.schedules) schedules.push_back(to_json(s));
  return {{"kind", "AdoptionPlan"},
          {"dryRun", !plan.apply},
          {"scope", plan.scope.empty() ? ojson(nullptr) : ojson(plan.scope)},
          {"gate", gate},
          {"discovered",
           {{"etcdClusters", plan.found_clusters},
            {"etcdBackups", plan.found_backups},
            {"etcdBackupSchedules", plan.found_schedules}}},
          {"inspected", inspected},
          {"clusters", clusters},
          {"backups", backups},
          {"schedules", schedules},
          {"verdicts", to_json(plan.verdicts)},
          {"legacyWebhooks", plan.legacy_webhooks},
          {"warnings", plan.warnings},
          {"blocked", plan.blocked()}};
}

}  // namespace migrate
