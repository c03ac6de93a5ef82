// `etcd-migrate verify` (docs/adoption-design.md#verify):
// proves from the live objects and etcd that an adopted cluster is the same
// cluster it was (identity, members, pods never recreated, volumes, data)
// and that its objects are what the operator expects (owners, labels,
// status prefills, the consistency rules I1-I5 shared with kubectl-etcd).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/consistency.h"
#include "admin/hashkv.h"
#include "base/result.h"
#include "kube/client.h"

namespace migrate {

struct VerifyCheck {
  std::string code;  // stable: CLUSTER_ID, MEMBERS, PODS, VOLUMES, OWNERS, DATA, HASHKV, AUTH, LEGACY, STATEFULSET, CONSISTENCY
  bool ok = false;
  std::string detail;
};

struct ClusterVerification {
  std::string ns, name;
  std::vector<VerifyCheck> checks;
  std::vector<admin::Finding> findings;
  // HASHKV: the members' data compared at one shared revision
  // (docs/data-consistency.md); true when two members disagree.
  bool data_differs = false;
  // The adopted legacy EtcdCluster's deletionTimestamp while it is still
  // Terminating, and for how many seconds it has been ("" / -1 otherwise).
  std::string legacy_terminating_since;
  long long legacy_terminating_seconds = -1;
  bool ok() const;
};

struct VerifyReport {
  std::vector<ClusterVerification> clusters;
  bool ok() const;
};

struct VerifyRequest {
  std::string ns;    // "" = every namespace
  std::string name;  // "" = every adopted cluster in scope
  std::string connect = "auto";
};

// NotFound (6) when nothing adopted matches; Usage (128) when a name without
// -n is found in several namespaces (docs/rules.md#adopt-flag-rules).
// 8 when the members of some cluster disagree on their data, else 0 when
// every check holds, else 1 (docs/exit-codes.md).
int verify_exit_code(const VerifyReport& report);

base::Result<VerifyReport> verify_adoption(kube::Client& client, const VerifyRequest& request);

nlohmann::ordered_json to_json(const VerifyReport& report);
std::string verify_text(const VerifyReport& report);

}  // namespace migrate
