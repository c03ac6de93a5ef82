// What an adopted cluster must look like (docs/adoption-design.md,
// docs/rules.md#owner-references), checked against the live apiserver and etcd, plus a writer
// that keeps putting keys while an adoption runs.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "etcd/config.h"
#include "migrate_e2e.h"

namespace etcd {
class Client;
}

namespace e2e {

struct Before {
  std::string legacy_uid;
  std::string cluster_id;
  std::map<std::string, std::string> member_ids;  // name -> 16 hex digits
  std::map<std::string, std::string> pod_uids;    // name -> uid
};
Before record(const LegacyFixture& f);

// Puts /e2e-writer/<n> every few milliseconds until stop(); counts errors.
// The fixture's etcd: its endpoints, and its client certificate under TLS.
etcd::Config etcd_config(const LegacyFixture& f);

class Writer {
 public:
  explicit Writer(const LegacyFixture& f);
  ~Writer();
  long long stop();  // the number of keys written
  long long errors() const { return errors_; }

 private:
  std::unique_ptr<etcd::Client> client_;
  std::atomic<bool> stop_{false};
  std::atomic<long long> written_{0}, errors_{0};
  std::thread thread_;
};

std::string backup_dir(const LegacyFixture& f);
// The adopted cluster's legacy StatefulSet is gone within `limit` (the
// garbage collector lets it go once its orphan delete has no dependents left).
bool wait_statefulset_gone(const LegacyFixture& f, std::chrono::seconds limit = std::chrono::seconds(60));
// adopt --apply --yes with the fixture's coordinates, --connect direct.
CommandResult apply(const LegacyFixture& f, const std::vector<std::string>& extra,
                    const std::map<std::string, std::string>& env = {});

void check_adopted(const LegacyFixture& f, const Before& before, bool auth);
void check_keys(const LegacyFixture& f, long long written);
void check_snapshot_file(const LegacyFixture& f, const std::string& path);
// Replays the operator's auth-enable on etcd, then logs in as root with the
// credentials Secret's password (docs/rules.md#root-user-replaced).
void check_operator_auth_enable(const LegacyFixture& f);

// The object graph of the fixture's namespace with everything that differs
// between two equal adoptions masked (uids, versions, times, IPs, the
// namespace name), for comparing runs.
std::string graph(const LegacyFixture& f);

}  // namespace e2e
