// Shared pieces of the e2e tests that run the real v1alpha2 operator
// (tests/testenv/operator: the operator's Deployment stand-in runs the
// `manager` built from the upstream snapshot, with real leader election),
// and the pod runner that stands in for the kubelet of the Pods it creates.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testenv.h"

namespace e2e {

// The operator Deployment `deployment` (NS/NAME) with the chart's manager
// container, WATCH_NAMESPACE `watch`, `replicas` replicas, supervised until
// the object goes. `image`: the container's image (default the chart's).
class Operator {
 public:
  Operator(std::string deployment, const std::string& watch, int replicas, const std::string& image = {});
  ~Operator();
  Operator(const Operator&) = delete;
  Operator& operator=(const Operator&) = delete;

  const std::string& deployment() const { return deployment_; }
  const std::string& dir() const { return dir_; }
  // kubectl scale, as a user does.
  void scale(int replicas);
  // Waits until the Deployment reports a ready replica and the operator
  // holds its leader Lease (it acts only then); fails the test on timeout.
  void wait_leading(std::chrono::seconds timeout = std::chrono::seconds(90));
  // The operator's output so far.
  std::string log() const;

 private:
  std::string deployment_, ns_, name_, dir_;
};

// The pod runner on `ns` (tests/testenv/pod-runner), stopped when the object goes.
class PodRunner {
 public:
  explicit PodRunner(std::string ns);
  ~PodRunner();
  PodRunner(const PodRunner&) = delete;
  PodRunner& operator=(const PodRunner&) = delete;
  const std::string& dir() const { return dir_; }

 private:
  std::string ns_, dir_;
};

// The operator's ERROR log lines about namespace `ns` since `from` (a byte
// offset of its log), without those about its own races that it retries as
// a matter of course (seen on clusters it made itself, with no command of
// ours involved): optimistic-concurrency conflicts, etcd's "unhealthy
// cluster" refusals, creating a Pod it had just created, and running the
// finalizer of a member it had just released (docs/operator-contract.md,
// "Lines the operator logs about its own races").
std::vector<std::string> operator_errors(const Operator& op, const std::string& ns, std::size_t from = 0);

// The metadata.name of each object of a list's items.
std::set<std::string> object_names(const nlohmann::json& items);

// The built kubectl-etcd (KUBECTL_ETCD, set by meson).
std::string kubectl_etcd_path();

// Polls `ready` every 500 ms until it returns true; fails the test with
// `what` after `timeout`.
void wait_until(const std::function<bool()>& ready, std::chrono::seconds timeout, const std::string& what);

// kubectl get ... -o json, parsed.
nlohmann::json get_json(const std::vector<std::string>& args);

// The condition `type` of an object's status, or null.
nlohmann::json condition(const nlohmann::json& obj, const std::string& type);

// kind/name -> resourceVersion of every object of `kinds` in `ns`, to prove
// that nobody wrote to them between two readings.
std::map<std::string, std::string> versions(const std::string& ns, const std::vector<std::string>& kinds);

// kind/name -> uid of every object of `kinds` in `ns`.
std::map<std::string, std::string> uids(const std::string& ns, const std::vector<std::string>& kinds);

// An EtcdCluster is converged as the operator leaves a healthy cluster:
// Available=True, Progressing=False/Reconciled, Degraded=False, readyMembers
// = spec.replicas = observed.replicas, every EtcdMember Ready=True with a
// memberID, and progressDeadline unset.
bool converged(const std::string& ns, const std::string& cluster);
// Why it is not ("" when it is): the first of those found missing.
std::string unconverged(const std::string& ns, const std::string& cluster);

}  // namespace e2e
