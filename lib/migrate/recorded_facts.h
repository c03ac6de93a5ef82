// The facts an adoption records on the adopted EtcdCluster, in the
// annotation cli.etcd-operator.cozystack.io/adoption (written by the
// pipeline's record step, read back by `verify` and the leftovers step).
// An annotation is a string anyone can edit: the reader checks every field
// and says which one is wrong (docs/rules.md#typed-reads).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace migrate {

struct RecordedMember {
  std::string member_id;
  std::string pod_uid;
  long long restarts = 0;
  std::string volume_name;
  std::optional<std::uint32_t> hash_kv;
};

struct RecordedFacts {
  std::string legacy_uid;
  std::string cluster_id;
  long long revision = 0;
  std::map<std::string, RecordedMember> members;  // by member name
  std::vector<std::string> controller_revisions;
};

// The facts of `cluster` (an EtcdCluster object). NotFound when the
// annotation is absent or empty; Failed, naming the EtcdCluster, the
// annotation and the field, when it is not JSON or a field has another type.
base::Result<RecordedFacts> read_recorded_facts(const nlohmann::json& cluster);

}  // namespace migrate
