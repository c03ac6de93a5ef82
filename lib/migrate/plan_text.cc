#include "migrate/plan_text.h"

#include <sstream>

#include "operator/names.h"
#include "output/yaml_emit.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

// Manifests print with keys in byte order, as kubectl and the reference do.
std::string manifest(const ojson& object) { return "---\n" + output::to_yaml(ojson(json(object))); }

void verdict_lines(std::ostringstream& out, const std::vector<Verdict>& verdicts) {
  for (const auto& v : verdicts) {
    switch (v.severity()) {
      case Severity::Blocker: out << "  ERROR " << v.id << ": "; break;
      case Severity::Security: out << "  !! SECURITY " << v.id << ": "; break;
      case Severity::Warning: out << "  warning " << v.id << ": "; break;
      case Severity::Note: out << "  note " << v.id << ": "; break;
    }
    out << v.message << "\n";
  }
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void cluster_steps(std::ostringstream& out, const ClusterPlan& p) {
  const std::string c = p.name, ns = p.ns;
  int n = 0;
  out << "  pods are never restarted and quorum is never touched; the steps, each resumable:\n";
  if (p.spec_auth) {
    out << "    " << ++n << ". root credentials Secret " << p.root_secret_name
        << (p.root_secret ? " created with a generated password (never printed), kept if it exists"
                          : " (given) must hold the password root gets")
        << "\n";
  }
  if (p.live_auth || p.spec_auth) {
    out << "    " << ++n << ". auth: disable auth on etcd"
        << (p.spec_auth ? ", then replace the password-less user root with one whose password is the Secret's"
                        : "")
        << " (restored if a later step fails before the pods change owner)\n";
  }
  out << "    " << ++n << ". safety backup (snapshot of a healthy member, verified)\n";
  out << "    " << ++n << ". create EtcdCluster " << ns << "/" << c << " (cluster ID " << p.cluster_id
      << " prefilled, marker " << op::kAnnAdoptedFrom << ") and " << p.members.size() << " EtcdMember"
      << (p.members.size() == 1 ? "" : "s") << " (" << join_names(p.member_names) << ") with their reserved annotations\n";
  out << "    " << ++n << ". owner-reference Service " << p.headless_service << " to the adopted members\n";
  out << "    " << ++n << ". orphan-delete StatefulSet " << c
      << ", then re-own and label each member's pod and PVC (once the delete is accepted)\n";
  // The legacy operator made a PDB only for a podDisruptionBudgetTemplate.
  out << "    " << ++n << ". delete the StatefulSet's ControllerRevisions" << (p.legacy_pdb ? ", " : " and ")
      << "ConfigMap " << op::legacy_cluster_state_configmap(c)
      << (p.legacy_pdb ? " and PodDisruptionBudget " + c : std::string()) << "\n";
  if (p.client_service == c && !p.client_service_exposure.empty()) {
    out << "    " << ++n << ". replace the client Service " << c << ", " << p.client_service_exposure
        << ", with the native headless Service of the same name: its external address is released "
           "(--replace-client-service)\n";
  } else if (p.client_service == c) {
    out << "    " << ++n << ". replace the client Service " << c << " with the native headless Service of the same name\n";
  } else if (!p.client_service_exposure.empty()) {
    out << "    " << ++n << ". make sure the native headless Service " << c << " exists; Service " << p.client_service
        << ", " << p.client_service_exposure << ", is kept as it is and owned by the new EtcdCluster\n";
  } else {
    out << "    " << ++n << ". make sure the native headless Service " << c << " exists; Service " << p.client_service
        << " keeps serving, owned by the new EtcdCluster\n";
  }
  out << "    " << ++n << ". orphan-delete the legacy EtcdCluster " << ns << "/" << c << " (last; not awaited)\n";
}

}  // namespace

std::string crd_notice() {
  return "The legacy CRDs are never removed by this tool. Once no " + std::string(op::kLegacyGroup) +
         " objects remain (EtcdBackupSchedules are never deleted by it), remove them with:\n"
         "  kubectl delete crd etcdclusters." + std::string(op::kLegacyGroup) + " etcdbackups." +
         std::string(op::kLegacyGroup) + " etcdbackupschedules." + std::string(op::kLegacyGroup) + "\n";
}

std::vector<std::string> gate_lines(const AdoptionPlan& plan) {
  std::vector<std::string> out;
  if (plan.gate.skipped) {
    out.push_back("controller check skipped (--skip-controller-check)");
  } else if (plan.gate.quiet()) {
    std::string line = "controller check: both operators are down (" + plan.legacy_controller;
    if (plan.new_controller != plan.legacy_controller) line += ", " + plan.new_controller;
    out.push_back(line + ")");
  } else {
    out.push_back("controller check: the operators are NOT down (see W19); a dry-run goes on, --apply refuses");
  }
  for (const auto& n : plan.gate.notes) out.push_back("  " + n);
  return out;
}

std::string discovery_line(const AdoptionPlan& plan) {
  return "found " + std::to_string(plan.found_clusters) + " EtcdCluster(s), " + std::to_string(plan.found_backups) +
         " EtcdBackup(s), " + std::to_string(plan.found_schedules) + " EtcdBackupSchedule(s)" +
         (plan.scope.empty() ? std::string(" in all namespaces") : " in namespace " + plan.scope);
}

std::string inspection_line(const InspectionLine& l) {
  return "inspected " + l.ns + "/" + l.name + ": cluster " + l.cluster_id + ", " + std::to_string(l.members) +
         " member" + (l.members == 1 ? "" : "s") + ", auth " + (l.live_auth ? "on" : "off");
}

std::string plan_text(const AdoptionPlan& plan) {
  std::ostringstream out;
  if (plan.nothing_to_migrate()) {
    out << "nothing to migrate: no legacy EtcdClusters, EtcdBackups or EtcdBackupSchedules"
        << (plan.scope.empty() ? std::string(" in any namespace") : " in namespace " + plan.scope) << "\n\n"
        << crd_notice();
    return out.str();
  }

  for (const auto& p : plan.clusters) {
    out << "EtcdCluster " << p.ns << "/" << p.name << ": " << action_name(p.action) << "\n";
    verdict_lines(out, p.verdicts);
    if (p.action == ClusterAction::Adopt) {
      cluster_steps(out, p);
      if (p.root_secret) {
        ojson secret = *p.root_secret;
        secret["stringData"]["password"] = "<generated at apply, never printed>";
        out << manifest(secret);
      }
      out << manifest(p.cluster);
      for (auto m : p.members) {
        m["metadata"]["ownerReferences"][0]["uid"] = "<uid of EtcdCluster " + p.name + ", read back at apply>";
        out << manifest(m);
      }
    }
    out << "\n";
  }
  for (const auto* list : {&plan.backups, &plan.schedules}) {
    for (const auto& b : *list) {
      out << b.kind << " " << b.ns << "/" << b.name << ": " << action_name(b.action) << "\n";
      verdict_lines(out, b.verdicts);
      if (b.deletes_legacy) {
        out << "  cleanup: delete " << (b.kind == op::kKindEtcdBackup ? "etcdbackups" : "etcdbackupschedules") << " "
            << b.ns << "/" << b.name << "\n";
      }
      for (const auto& o : b.objects) out << manifest(o);
      out << "\n";
    }
  }
  if (!plan.verdicts.empty() || !plan.warnings.empty()) {
    out << "run-wide:\n";
    verdict_lines(out, plan.verdicts);
    for (const auto& w : plan.warnings) out << "  warning: " << w << "\n";
    out << "\n";
  }
  size_t blocked = plan.blocked();
  if (!plan.apply) {
    out << "dry-run complete: nothing was changed";
    if (blocked > 0) out << "; " << blocked << " plan(s) blocked (ERROR lines above)";
    out << ". --apply executes this plan.\n\n";
    // With --apply the result's closing lines carry it (apply_text), once.
    out << crd_notice();
  }
  return out.str();
}

}  // namespace migrate
