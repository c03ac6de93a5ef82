// Which etcd members a command talks to and how (docs/rules.md#reaching-etcd): from an
// EtcdCluster (-c, or -p through the Pod's cluster label) down to its
// EtcdMembers, Pods and member endpoints, with TLS from the cluster's Secrets
// and root's password from its credentials Secret; or from --endpoints with
// etcdctl's flags and ETCDCTL_* environment for any etcd.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/operator_state.h"
#include "base/result.h"
#include "etcd/config.h"

namespace kube {
class Client;
class PortForwards;
}

namespace admin {

enum class ConnectMode { Direct, PortForward };

// What the user asked for; flags and environment, nothing resolved yet.
struct TargetOptions {
  std::string ns;                  // resolved by the caller (-n or the context's)
  std::string cluster;             // -c/--cluster
  std::string pod;                 // -p/--pod
  std::string credentials_secret;  // -s: NAME or NS/NAME
  std::vector<std::string> endpoints;
  std::string cacert, cert, key;
  std::string user;                // name[:password]
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string connect = "auto";    // auto|direct|port-forward; normalize() leaves direct|port-forward
  std::chrono::milliseconds dial_timeout{5000};
  std::chrono::milliseconds command_timeout{5000};
  std::string operator_deployment;  // --operator NS/NAME (default: the chart's)
};

// Reads an environment variable; replaced in tests.
using Getenv = std::function<std::optional<std::string>(const std::string&)>;
Getenv process_env();

// Usage errors (128) for conflicting or unavailable choices, and the
// ETCDCTL_* environment folded in where no flag was given (--endpoints mode
// only: a cluster's own Secrets win over a shell's leftovers).
base::Result<TargetOptions> normalize(TargetOptions o, const Getenv& env);
// auto: direct inside a cluster (KUBERNETES_SERVICE_HOST set), port-forward
// outside (docs/rules.md#connect-modes).
base::Result<ConnectMode> parse_connect(const std::string& value, const Getenv& env);

// One member as the command will dial it.
struct MemberTarget {
  std::string name;         // EtcdMember = Pod = etcd name; empty with --endpoints
  std::string endpoint;     // the URL dialled; empty when it cannot be dialled
  std::string server_name;  // TLS name verified (the member DNS name)
  std::string problem;      // why there is no endpoint (no Pod, no Pod IP, dormant)
  std::uint64_t id = 0;     // status.memberID, 0 when unknown
  bool voter = true;        // status.isVoter (always true with --endpoints)
  bool pod_ready = false;
  long long restarts = -1;  // the etcd container's restartCount, -1 when no Pod reports it
};

struct Target {
  std::string ns;
  std::string cluster;            // empty with --endpoints
  nlohmann::json cluster_object;  // null with --endpoints
  nlohmann::json member_objects = nlohmann::json::array();  // EtcdMembers
  nlohmann::json pod_objects = nlohmann::json::array();     // the cluster's Pods
  std::string pod;                // -p: the one member asked for
  std::optional<OperatorState> operator_state;  // a cluster's operator, judged at resolution
  std::vector<MemberTarget> members;
  etcd::Config config;            // endpoints = voters to send cluster calls to
  // With port-forward: the run's forwards, one per Pod name.
  std::shared_ptr<kube::PortForwards> forwards;
  bool from_cluster() const { return !cluster.empty(); }
  // The members of -p (one) or all of them.
  std::vector<const MemberTarget*> selected() const;
};

// The pure part of resolution: members and endpoints from the objects
// (docs/rules.md#member-endpoints, docs/rules.md#connect-modes: pod IP dialled, member DNS name verified).
std::vector<MemberTarget> member_targets(const nlohmann::json& cluster, const nlohmann::json& members,
                                         const nlohmann::json& pods);
// The endpoints for cluster calls: ready voters, else every dialable member.
std::vector<std::string> cluster_endpoints(const std::vector<MemberTarget>& members);
// The peer URL the operator gives member m (docs/rules.md#member-endpoints).
std::string peer_url(const nlohmann::json& cluster, const nlohmann::json& member);
// "https" when the cluster serves clients over TLS.
bool client_tls(const nlohmann::json& cluster);

// Resolves against the API (kube may be null with --endpoints). With
// port-forward the endpoints stay the pods' URLs (they name the members) and
// config.dial sends each through a local forward to its pod, started on
// first use.
base::Result<Target> resolve(const TargetOptions& options, kube::Client* kube);

// The config that dials member m alone, with the target's TLS, credentials
// and timeouts. m may come from objects read after resolution: a Pod the
// operator created again has a new IP, and with port-forward m's endpoint
// is forwarded to the Pod by its name all the same.
etcd::Config member_config(const Target& target, const MemberTarget& m);

}  // namespace admin
