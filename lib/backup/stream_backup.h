// The safety backup of stream mode (docs/rules.md#safety-backup): take
// a verified snapshot of one etcd cluster over the tool's own connection and
// write it to a local directory and/or S3 at once, in constant memory.
//
// A healthy voting member is chosen (status answers without errors, not a
// learner; followers before the leader, to keep load off it) and, should its
// stream fail, the next one. A linearizable read on it first makes sure it
// has applied every write acknowledged before the backup began. The snapshot's SHA-256 trailer is verified
// (lib/etcd) before any destination commits; the file is written atomically
// with mode 0600; the S3 object is read back before it counts. A failure
// leaves no partial file and no multipart upload behind. Artefacts are named
// as the operator's snapshot agent names them (op::migration_snapshot_file),
// and an existing one is only overwritten when it belongs to the same
// cluster UID.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backup/s3_config.h"
#include "backup/s3_request.h"
#include "backup/s3_sink.h"
#include "base/result.h"
#include "etcd/client.h"

namespace backup {

struct S3Destination {
  S3Location location;
  S3Credentials credentials;
  std::string key_prefix;  // --backup-s3-key; the object is <prefix>/<ns>-<c>-migration.db
  std::size_t part_size = kS3DefaultPartSize;
  std::size_t parts_in_flight = kS3PartsInFlight;
  bool checksum_crc32c = true;  // S3SinkOptions::checksum_crc32c
};

// endpoint = the member streaming; total = 0 while unknown.
using BackupProgress = std::function<void(const std::string& endpoint, std::uint64_t done, std::uint64_t total)>;

struct StreamBackupRequest {
  std::string ns;
  std::string cluster;
  std::string cluster_uid;  // the legacy EtcdCluster's metadata.uid: marks the artefacts' owner
  std::vector<std::string> endpoints;  // the members' client URLs, as the client config reaches them
  std::string dir;                     // --backup-dir; empty: no local file
  std::optional<S3Destination> s3;     // empty: no upload
  std::optional<etcd::Deadline> deadline;  // for each member's stream; none: as long as it takes
  BackupProgress progress;
  // Polled between chunks; true stops the stream with ErrorKind::Interrupted,
  // aborting every destination (SIGINT/SIGTERM: docs/rules.md#resumable-adoption).
  std::function<bool()> cancelled;
};

struct StreamBackupResult {
  std::string endpoint;         // the member the snapshot came from
  std::uint64_t member_id = 0;
  std::int64_t revision = 0;    // the member's revision after a linearizable read: the snapshot holds at least this
  std::uint64_t bytes = 0;      // db and its 32-byte trailer, as etcdctl saves it
  std::string sha256;           // hex, etcd's verified trailer (SHA-256 of the db)
  std::string stored_sha256;    // hex, of all bytes stored (sha256sum of the file or object)
  std::string file;             // the local file written, or empty
  std::optional<S3UploadResult> s3;
  std::vector<std::string> destinations;  // the file's path and/or s3://bucket/key
  std::vector<std::string> passed_over;   // "endpoint: why" of members not used
};

// The local artefact's path in `dir` (--backup-dir), checked as
// stream_backup() checks it before etcd is read: `dir` leads to a directory
// (a link to one is followed), and the snapshot file and its .uid mark are
// absent or regular files (docs/rules.md#files-the-user-names); usage errors
// (128) otherwise.
base::Result<std::string> local_backup_path(const std::string& dir, const std::string& ns, const std::string& cluster);

base::Result<StreamBackupResult> stream_backup(etcd::Client& client, const StreamBackupRequest& request);

}  // namespace backup
