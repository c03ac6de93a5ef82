#include "migrate/adoption_step.h"

namespace migrate {

const char* step_name(AdoptionStep step) {
  switch (step) {
    case AdoptionStep::Prerequisites: return "prerequisites";
    case AdoptionStep::RootCredentials: return "root-credentials";
    case AdoptionStep::Auth: return "auth";
    case AdoptionStep::Backup: return "backup";
    case AdoptionStep::EtcdCluster: return "etcdcluster";
    case AdoptionStep::EtcdMembers: return "etcdmembers";
    case AdoptionStep::HeadlessService: return "headless-service";
    case AdoptionStep::StatefulSet: return "statefulset";
    case AdoptionStep::PodsAndPvcs: return "pods-and-pvcs";
    case AdoptionStep::LegacyLeftovers: return "legacy-leftovers";
    case AdoptionStep::Service: return "service";
    case AdoptionStep::LegacyEtcdCluster: return "legacy-etcdcluster";
  }
  return "unknown";
}

const std::vector<AdoptionStep>& pipeline_steps() {
  // Why this order is crash-safe: docs/adoption-design.md. The pods change
  // owner right after the StatefulSet's delete was accepted, while its
  // ControllerRevisions still exist (docs/adoption-reown.md).
  static const std::vector<AdoptionStep> steps = {
      AdoptionStep::Prerequisites, AdoptionStep::RootCredentials, AdoptionStep::Auth,
      AdoptionStep::Backup,        AdoptionStep::EtcdCluster,     AdoptionStep::EtcdMembers,
      AdoptionStep::HeadlessService, AdoptionStep::StatefulSet,   AdoptionStep::PodsAndPvcs,
      AdoptionStep::LegacyLeftovers, AdoptionStep::Service,
  };
  return steps;
}

}  // namespace migrate
