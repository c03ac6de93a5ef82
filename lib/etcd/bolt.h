// Reads one value out of a snapshot's bbolt db without etcd: restore needs
// to know whether the snapshot has auth enabled (docs/restore.md#auth) before
// it creates a cluster whose spec.auth can no longer be added. Read-only: it
// reads the two meta pages and the pages on the way to the value (pread,
// bounded by the db's size), not the whole file; a file that is not a bbolt
// db of the layout etcd writes is an error, not a guess.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"

namespace etcd {

// The value of `key` in the top-level bucket `bucket` of the bbolt db in the
// first `db_size` bytes of `path` (a snapshot file: the db, then its sha256
// trailer); nullopt when the bucket or the key does not exist.
base::Result<std::optional<std::string>> bolt_value(const std::string& path, std::uint64_t db_size,
                                                    const std::string& bucket, const std::string& key);

// etcd's auth switch: bucket "auth", key "authEnabled", value 1 when on.
base::Result<bool> snapshot_auth_enabled(const std::string& path, std::uint64_t db_size);

}  // namespace etcd
