// `hashkv` and `check --consistency` (docs/data-consistency.md): every
// member's HashKV at one shared revision, compared. etcd-migrate verify runs
// the same comparison after an adoption.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/target.h"
#include "etcd/client.h"
#include "output/render.h"

namespace admin {

struct MemberHash {
  std::string name;      // the EtcdMember, or the endpoint with --endpoints
  std::string endpoint;
  std::uint64_t id = 0;  // 0 until the member answered
  bool learner = false;  // learners refuse HashKV: never compared
  std::int64_t revision = 0;  // its current revision when asked
  std::optional<std::uint32_t> hash;
  std::int64_t hash_revision = 0;     // the revision the hash covers
  std::int64_t compact_revision = 0;  // as the member answered with the hash
  std::string error;                  // why there is no hash
  std::string state;                  // agrees, differs, skipped, error (set by compare_hashes)
};

// The one revision every member is hashed at: the smallest of the members'
// current revisions, if it is above `compacted` (the highest compact
// revision seen so far); nullopt when there is no such revision.
std::optional<std::int64_t> shared_revision(const std::vector<std::int64_t>& current, std::int64_t compacted);

enum class HashVerdict {
  Consistent,    // every compared member answered the same hash
  Inconsistent,  // two members with the same compact revision answered different hashes
  Incomplete,    // the answers agree, but some member gave none or a compaction split them
};
const char* verdict_name(HashVerdict v);

struct HashComparison {
  HashVerdict verdict = HashVerdict::Consistent;
  bool compaction_moved = false;  // answers at different compact revisions: ask again
  std::vector<std::string> differing;  // the members outside the largest group of equal hashes
  std::string message;
};

// Pure. Sets each member's state. Hashes are compared within one compact
// revision only: the hash covers the history from the compact revision on,
// so members that applied a compaction and members that did not yet differ
// without any data differing.
HashComparison compare_hashes(std::vector<MemberHash>& members);

struct HashKVReport {
  std::int64_t revision = 0;  // the shared revision of the last attempt
  int attempts = 0;
  std::vector<MemberHash> members;
  HashComparison comparison;
};

// Status of every member, the shared revision, HashKV of every member at it
// under one deadline; asked once more when a compaction passed the revision.
// Errors only when no member could be asked at all.
base::Result<HashKVReport> compare_hash_kv(const Target& t, etcd::Client& c);

// 0 consistent; 8 members disagree; 5 some member gave no hash; 2 none answered.
int hashkv_exit_code(const HashKVReport& r);

nlohmann::ordered_json hashkv_document(const HashKVReport& r);
output::View hashkv_view();
// Table and wide: the rows, then the verdict on a line of its own; json and
// yaml: the document.
std::string render_hashkv(const nlohmann::ordered_json& doc, output::Format format);

}  // namespace admin
