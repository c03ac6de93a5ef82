// Shared pieces of the etcd-migrate e2e tests: a legacy fixture of its own
// (tests/testenv/legacy-fixture, backed by a real etcd cluster), the program
// run against the shared apiserver, and a fingerprint of everything the
// adoption could touch, to prove that a dry-run changed nothing.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "testenv.h"

namespace e2e {

class LegacyFixture {
 public:
  // `ns` gets its own operator coordinates (docs/rules.md#parallel-tests); `args` are more
  // `legacy-fixture up` flags (--version, --tls, --auth, ...).
  LegacyFixture(const std::string& ns, const std::string& name, const std::vector<std::string>& args);
  ~LegacyFixture();
  LegacyFixture(const LegacyFixture&) = delete;
  LegacyFixture& operator=(const LegacyFixture&) = delete;

  const std::string& ns() const { return ns_; }
  const std::string& name() const { return name_; }
  std::string legacy_controller() const { return info_.value("legacyController", ""); }
  std::string new_controller() const { return info_.value("newController", ""); }
  const nlohmann::json& info() const { return info_; }
  std::map<std::string, std::string> etcd_env() const;  // the cluster.env of its etcd
  // etcdctl of the fixture's etcd version with its client certificate.
  CommandResult etcdctl(const std::vector<std::string>& args) const;
  long long etcd_revision() const;
  std::string etcd_cluster_id() const;  // 16 hex digits, from etcdctl

 private:
  std::string ns_, name_, dir_;
  nlohmann::json info_;
};

std::string etcd_migrate_path();  // the built program (ETCD_MIGRATE, set by meson)
// etcd-migrate with the environment's kubeconfig; `args` follow the program name.
CommandResult etcd_migrate(const std::vector<std::string>& args);

// `adopt -n NS --connect direct -o json` with the fixture's operator
// coordinates; the parsed document (the test fails when stdout is not JSON).
nlohmann::json adopt_plan(const LegacyFixture& f, const std::vector<std::string>& extra, int& rc);

// The plan of one cluster in a document, or null.
nlohmann::json cluster_plan(const nlohmann::json& doc, const std::string& ns, const std::string& name);
std::vector<std::string> verdict_ids(const nlohmann::json& plan);
bool has_verdict(const nlohmann::json& plan, const std::string& id);

// resourceVersion of every object of the kinds an adoption reads or writes
// in the fixture's namespace, plus its webhook configurations.
std::map<std::string, std::string> fingerprint(const LegacyFixture& f);

}  // namespace e2e
