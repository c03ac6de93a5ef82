// Live inspection of one legacy cluster (docs/rules.md#dial-pods,
// docs/rules.md#legacy-tls-material): the member pods from the inventory, the TLS material
// from the legacy Secrets, and etcd's own answers (members, cluster ID,
// auth), read-only. The result is the ClusterFacts the pure plan consumes.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "etcd/client.h"
#include "etcd/config.h"
#include "kube/client.h"
#include "kube/local_forward.h"
#include "kube/read_once.h"
#include "migrate/facts.h"
#include "migrate/inventory.h"
#include "operator/legacy_cluster.h"

namespace migrate {

struct InspectOptions {
  std::string auth_secret;  // --auth-secret, "" when not given
  std::chrono::milliseconds dial_timeout{5000};
  std::chrono::milliseconds call_timeout{10000};
  // Set: members are reached through port-forwards (--connect port-forward).
  std::shared_ptr<kube::PortForwards> forwards;
};

// One way to reach the cluster's etcd: a member pod dialled directly.
struct EtcdTarget {
  std::string pod;
  etcd::Config config;  // endpoint, TLS with the pod's DNS name
};

// The legacy cluster's TLS material (docs/rules.md#legacy-tls-material), or an error naming the
// Secret and key. Plaintext clusters give an empty TlsConfig.
base::Result<etcd::TlsConfig> legacy_tls(kube::Client& client, const op::LegacyCluster& legacy);
base::Result<etcd::TlsConfig> legacy_tls(kube::ReadOnce& secrets, const op::LegacyCluster& legacy);

// The Ready member pods (docs/rules.md#dial-pods: named <c>-<i>, Ready condition True, with an
// IP), in name order, each with its dial configuration (docs/rules.md#connect-modes: the pod IP, TLS
// name <pod>.<hl>.<ns>.svc).
std::vector<EtcdTarget> etcd_targets(const op::LegacyCluster& legacy, const Inventory& inventory,
                                     const etcd::TlsConfig& tls, const InspectOptions& options);

ClusterFacts inspect_cluster(kube::Client& client, const op::LegacyCluster& legacy, const Inventory& inventory,
                             const InspectOptions& options);

}  // namespace migrate

namespace migrate {

// Whether auth is on in etcd (AuthStatus; on etcd 3.4, which lacks it, a
// login probe that cannot succeed).
base::Result<bool> live_auth_enabled(etcd::Client& c);

// One configuration reaching every target (each endpoint verified as its
// own member's DNS name), for calls that fan out or fail over.
etcd::Config cluster_config(const std::vector<EtcdTarget>& targets);

}  // namespace migrate
