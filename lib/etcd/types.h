// Plain result values of etcd calls: no protobuf type leaks out of lib/etcd.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace etcd {

struct Header {
  std::uint64_t cluster_id = 0;
  std::uint64_t member_id = 0;  // the member that answered
  std::int64_t revision = 0;
  std::uint64_t raft_term = 0;
};

struct Member {
  std::uint64_t id = 0;
  std::string name;  // empty until the member has started once
  std::vector<std::string> peer_urls;
  std::vector<std::string> client_urls;  // empty until started
  bool is_learner = false;

  bool started() const { return !name.empty(); }
};

struct MemberList {
  Header header;
  std::vector<Member> members;
};

struct MemberAddResult {
  Header header;
  Member member;                 // the new one
  std::vector<Member> members;   // the membership after the add
};

struct StatusInfo {
  std::string endpoint;  // where the call went
  Header header;
  std::string version;
  std::int64_t db_size = 0;
  std::int64_t db_size_in_use = 0;
  std::int64_t db_size_quota = 0;    // 3.6+, else 0
  std::uint64_t leader = 0;
  std::uint64_t raft_index = 0;
  std::uint64_t raft_term = 0;
  std::uint64_t raft_applied_index = 0;
  std::vector<std::string> errors;
  bool is_learner = false;
  std::string storage_version;       // 3.6+, else empty

  bool is_leader() const { return leader != 0 && leader == header.member_id; }
};

enum class AlarmType { None = 0, NoSpace = 1, Corrupt = 2 };
const char* alarm_name(AlarmType t);  // "NONE", "NOSPACE", "CORRUPT"

struct Alarm {
  std::uint64_t member_id = 0;
  AlarmType type = AlarmType::None;
};

struct HashInfo {
  Header header;
  std::uint32_t hash = 0;
};

struct HashKVInfo {
  Header header;
  std::uint32_t hash = 0;
  std::int64_t compact_revision = 0;
  std::int64_t hash_revision = 0;  // 3.6+, else 0
};

struct KeyValue {
  std::string key;
  std::string value;
  std::int64_t create_revision = 0;
  std::int64_t mod_revision = 0;
  std::int64_t version = 0;
  std::int64_t lease = 0;
};

struct RangeOptions {
  std::string range_end;  // empty: the key alone; "\0": every key >= key
  std::int64_t limit = 0;
  std::int64_t revision = 0;
  bool serializable = false;
  bool keys_only = false;
  bool count_only = false;
};

struct RangeResult {
  Header header;
  std::vector<KeyValue> kvs;
  bool more = false;
  std::int64_t count = 0;
};

struct Permission {
  enum class Type { Read = 0, Write = 1, ReadWrite = 2 };
  Type type = Type::Read;
  std::string key;
  std::string range_end;
};

struct SnapshotInfo {
  std::string endpoint;
  Header header;               // empty: etcd 3.4-3.6 send none with snapshots
  std::uint64_t bytes = 0;     // written to the sink, trailer included (as etcdctl saves it)
  std::string sha256;          // hex; the verified trailer = sha256 of the db
  std::string stream_sha256;   // hex, of every byte written (db and trailer): sha256sum of the saved file
  std::string version;         // storage version the server announces (3.6+), else empty
};

}  // namespace etcd
