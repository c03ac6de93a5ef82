// Names of the safety backup of an adoption (docs/rules.md#safety-backup,
// docs/rules.md#backup-job): the artefact the operator's snapshot agent writes
// (file name, S3 key, owner metadata) and the Job that runs it. The stream
// mode writes the very same artefacts, so either mode finds and overwrites
// the other's. Kept apart from names.h only to stay header-only.
#pragma once

#include <string>
#include <string_view>

#include "base/sha256.h"

namespace op {

// User metadata (x-amz-meta-<name>) of the artefact. The UID one is the
// agent's; it marks whose artefact it is (the legacy EtcdCluster's uid).
inline constexpr std::string_view kSnapshotMetaUid = "etcd-snapshot-uid";
// This suite's additions: the revision the snapshot holds at least, and the
// hex SHA-256 of the object's bytes (what sha256sum of a download prints).
inline constexpr std::string_view kSnapshotMetaRevision = "etcd-snapshot-revision";
inline constexpr std::string_view kSnapshotMetaSha256 = "etcd-snapshot-sha256";

// The reference's label on its backup Job (its pod template has none).
inline constexpr std::string_view kLabelCreatedBy = "app.kubernetes.io/created-by";
inline constexpr std::string_view kCreatedByMigrate = "etcd-migrate";

// Kubernetes' label on a Job's pods naming the Job's uid: selects the pods
// of this very Job, not of an earlier one of the same name.
inline constexpr std::string_view kLabelJobControllerUid = "batch.kubernetes.io/controller-uid";

// SNAPSHOT_NAME of the agent: <ns>-<c>-migration.
inline std::string migration_snapshot_name(std::string_view ns, std::string_view c) {
  return std::string(ns) + "-" + std::string(c) + "-migration";
}

// The artefact's file name: <ns>-<c>-migration.db.
inline std::string migration_snapshot_file(std::string_view ns, std::string_view c) {
  return migration_snapshot_name(ns, c) + ".db";
}

// The file beside a PVC (or --backup-dir) artefact that holds its owner's UID.
inline std::string snapshot_uid_file(std::string_view artefact_path) { return std::string(artefact_path) + ".uid"; }

// The S3 key: <prefix>/<file>, no separator added when the prefix ends in
// '/', just the file when the prefix is empty.
inline std::string snapshot_object_key(std::string_view prefix, std::string_view file) {
  if (prefix.empty()) return std::string(file);
  if (prefix.back() == '/') return std::string(prefix) + std::string(file);
  return std::string(prefix) + "/" + std::string(file);
}

// The backup Job, <c>-migration-snapshot, kept within 63 characters:
// its name is also the value of the job-name label of its pods, which
// Kubernetes limits to 63. A longer one keeps the suffix and a hash of the
// whole cluster name, so distinct clusters never share a Job.
inline std::string migration_snapshot_job(std::string_view c) {
  constexpr std::string_view suffix = "-migration-snapshot";
  constexpr std::size_t max = 63;
  std::string name = std::string(c) + std::string(suffix);
  if (name.size() <= max) return name;
  std::string hash = base::to_hex(base::sha256(c)).substr(0, 8);
  std::string head(c.substr(0, max - suffix.size() - hash.size() - 1));
  while (!head.empty() && (head.back() == '-' || head.back() == '.')) head.pop_back();
  return head + "-" + hash + std::string(suffix);
}

}  // namespace op
