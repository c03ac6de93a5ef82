// The pure translation of a legacy EtcdCluster's spec into the v1alpha2 spec
// (docs/rules.md#translation): no I/O, every
// decision a verdict. The live member list is an input (replicas, peer
// auto-TLS detection).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "migrate/facts.h"
#include "migrate/verdict.h"
#include "operator/legacy_cluster.h"

namespace migrate {

struct SpecTranslation {
  nlohmann::ordered_json annotations = nlohmann::ordered_json::object();  // of the new EtcdCluster
  nlohmann::ordered_json spec = nlohmann::ordered_json::object();
  nlohmann::ordered_json member_tls;  // EtcdMember spec.tls, null when none
  std::vector<Verdict> verdicts;      // unsorted
  bool spec_auth = false;
  std::string root_secret;            // spec.auth's Secret name, "" without auth
  bool generate_root_secret = false;  // the tool creates <c>-root-credentials
};

// `members` are the live members in etcd's order; `facts` gives the live
// auth state and the --auth-secret check.
SpecTranslation translate_spec(const op::LegacyCluster& legacy, const std::vector<LiveMember>& members,
                               const ClusterFacts& facts, const PlanOptions& options);

// Parsing helpers with their own tests.
bool is_semver_triplet(const std::string& s);  // ^\d+\.\d+\.\d+$
bool parse_int64_strict(const std::string& s, long long& out);  // [+-]?digits, in range
// Every certificate of the PEM text `certs` is in the PEM text `bundle`
// (whitespace aside); false when `certs` holds none.
bool pem_holds_all(const std::string& bundle, const std::string& certs);

}  // namespace migrate
