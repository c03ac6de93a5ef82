// An EtcdCluster that the real operator bootstraps from nothing, in a
// namespace of the test's own: the operator's Deployment <ns>/etcd-operator
// watching only that namespace, and a pod runner for the Pods it creates.
// With TLS, the Secrets are made as a user (or cert-manager) would: a CA, a
// server and a peer certificate for `*.<c>.<ns>.svc`, and an operator-client
// certificate.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "etcd/config.h"
#include "operator_e2e.h"
#include "testenv.h"

namespace e2e {

class OperatorCluster {
 public:
  struct Options {
    bool tls = false;
    int replicas = 3;
  };
  OperatorCluster(const std::string& prefix, Options o);
  // Stops the operator and the pod runner, then lets the namespace go: the
  // member finalizers nobody runs any more are dropped first.
  ~OperatorCluster();
  OperatorCluster(const OperatorCluster&) = delete;
  OperatorCluster& operator=(const OperatorCluster&) = delete;

  const std::string& ns() const { return ns_.name(); }
  const std::string& name() const { return name_; }
  std::string deployment() const { return ns() + "/etcd-operator"; }
  Operator& op() { return *op_; }
  const Operator& op() const { return *op_; }
  PodRunner& runner() { return *runner_; }
  const PodRunner& runner() const { return *runner_; }

  // kubectl-etcd CMD... -c <c> -n <ns> --connect direct --operator <ns>/etcd-operator ARGS...
  CommandResult tool(const std::vector<std::string>& cmd, const std::vector<std::string>& args = {}) const;
  // etcdctl 3.6 against the running members by their DNS names (the pod
  // runner's hosts entries), with the operator-client certificate under TLS.
  CommandResult etcdctl(const std::vector<std::string>& args) const;
  // The same against one member only (a writer that goes through a member that stays).
  CommandResult etcdctl_at(const std::string& member, const std::vector<std::string>& args) const;
  // lib/etcd's view of the same: the running members' DNS names, `first`
  // (a member name) first if given, the operator-client certificate under TLS.
  etcd::Config etcd_config(const std::string& first = {}) const;
  // The log of the etcd the pod runner runs for Pod `member` (raft's own lines).
  std::string etcd_log_path(const std::string& member) const;
  // etcd's membership ("members" of `member list -w json`); fails the test when unreadable.
  nlohmann::json etcd_members() const;
  // The EtcdMembers of the cluster that are not Terminating.
  nlohmann::json members() const;
  // name -> etcd member ID (%016x) as etcd lists it, voters and learners.
  std::map<std::string, std::string> etcd_ids() const;
  // The member name of etcd's leader.
  std::string leader() const;

  // Empty when etcd's membership equals the EtcdMembers: the same names and
  // IDs, every member a voter marked isVoter, no learner; else what differs.
  std::string membership_mismatch() const;
  // `kubectl-etcd check` exits 0 and reports no finding.
  void check_clean(const std::string& where) const;
  // The end of a membership step: `want` members in etcd, equal to the
  // EtcdMembers, and check clean.
  void check_settled(std::size_t want, const std::string& where) const;
  // Waits until the operator reports the cluster converged (e2e::converged).
  // The bound covers a scale-up the operator makes one member at a time
  // (learner, catch-up, promotion) on a 2-core machine that runs other
  // tests beside it; a clean run takes well under a minute per member.
  void wait_converged(const std::string& what, std::chrono::seconds timeout = std::chrono::seconds(300)) const;
  // e2e::operator_errors for this namespace.
  std::vector<std::string> operator_errors(std::size_t from = 0) const;
  std::size_t log_size() const { return op_->log().size(); }

 private:
  Namespace ns_;
  std::string name_ = "etcd";
  std::string dir_;
  bool tls_ = false;
  // The endpoint of Pod `pod`, and those of the running Pods.
  std::string endpoint(const std::string& pod) const;
  std::vector<std::string> running_endpoints() const;
  std::unique_ptr<PodRunner> runner_;
  std::unique_ptr<Operator> op_;
};

// Seconds since t0, for the timings the tests print.
double seconds_since(std::chrono::steady_clock::time_point t0);

}  // namespace e2e
