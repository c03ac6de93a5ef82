// The steps of one cluster's adoption (docs/adoption-design.md), as one
// type: the pipeline runs them on the step engine (docs/step-engine.md) in
// this order, and each keeps the stable name the summary, the progress lines
// and the ETCD_MIGRATE_TEST_KILL_AFTER seam of the crash tests use.
#pragma once

#include <vector>

namespace migrate {

enum class AdoptionStep {
  Prerequisites,     // the backup destinations answer; writes nothing
  RootCredentials,   // the root-credentials Secret
  Auth,              // auth off, root replaced
  Backup,            // the safety snapshot
  EtcdCluster,       // the new EtcdCluster, its facts and its status prefill
  EtcdMembers,       // one EtcdMember per live member, with its status prefill
  HeadlessService,   // the headless Service owned by the EtcdMembers
  StatefulSet,       // the StatefulSet orphan-deleted
  PodsAndPvcs,       // pods and PVCs re-owned by their EtcdMembers
  LegacyLeftovers,   // ControllerRevisions, the cluster-state ConfigMap, the legacy PDB
  Service,           // Service <c> native headless; the client Service re-owned
  LegacyEtcdCluster, // the legacy EtcdCluster orphan-deleted, once the whole run got this far
};

const char* step_name(AdoptionStep step);

// The per-cluster pipeline, in order; the last step (LegacyEtcdCluster) runs
// on its own once every pipeline of the run finished these.
const std::vector<AdoptionStep>& pipeline_steps();

}  // namespace migrate
