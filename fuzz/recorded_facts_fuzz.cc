// The adoption facts annotation (any text a person can put in it) on an
// EtcdCluster, through the reader `etcd-migrate verify` and the leftovers
// step use (docs/rules.md#typed-reads): an error or the facts, never an
// exception.
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "migrate/recorded_facts.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::json cluster = {{"metadata", {{"namespace", "tenant-a"}, {"name", "etcd"}}}};
  cluster["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/adoption"] =
      std::string(reinterpret_cast<const char*>(data), size);
  auto facts = migrate::read_recorded_facts(cluster);
  if (!facts) (void)facts.error().one_line();
  return 0;
}
