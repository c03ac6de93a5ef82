// `snapshot save` to a local file, `snapshot status --file` (verify a saved
// file), and the EtcdSnapshot reads `snapshot list` / `snapshot status NAME`
// (docs/rules.md#etcdsnapshot).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "admin/cr_run.h"
#include "admin/session.h"
#include "base/result.h"
#include "etcd/snapshot.h"
#include "output/render.h"

namespace kube {
class Client;
}

namespace admin {

struct SnapshotSaveRequest {
  std::string path;
  std::string member;    // --member / -p: the source; empty = a healthy follower
  bool overwrite = false;
  std::chrono::milliseconds stall_timeout{30000};  // no total timeout; this one ends a stalled stream
};

// The error of a stream that failed, said of its member (not only of its
// endpoint). Once bytes arrived the member was reached, so the endpoint, CA
// and server-name hint of a failed dial would mislead: the stream broke,
// and the file at the path is as it was (docs/server-faults.md).
base::Error snapshot_stream_error(base::Error e, const std::string& member, const std::string& path,
                                  std::uint64_t bytes_received);

struct SnapshotSaveReport {
  std::string path;
  std::uint64_t size = 0;
  std::string sha256;      // of the db (the verified trailer)
  std::string member;
  std::uint64_t member_id = 0;
  std::int64_t revision = 0;  // the source's revision just before the stream
};

// What snapshot_save checks of its path before anything else, for a program
// to call before it connects: a usage error (128) when the path, or
// <path>.part, is anything but a regular file (a device, FIFO, socket,
// directory or symbolic link: docs/rules.md#files-the-user-names); refused
// (3) when a file is there and overwrite is not set.
base::Status check_snapshot_target(const SnapshotSaveRequest& r);

// Streams to <path>.part (0600), checks size % 512 == 32 and the trailer,
// fsyncs and renames; check_snapshot_target() first.
base::Result<SnapshotSaveReport> snapshot_save(Session& s, const SnapshotSaveRequest& r,
                                              etcd::SnapshotProgress progress = {});
nlohmann::ordered_json snapshot_save_document(const SnapshotSaveReport& r);
output::View snapshot_save_view();

struct SnapshotFileReport {
  std::string path;
  std::uint64_t size = 0;
  std::string sha256;  // of the db part
  bool valid = false;
  std::string error;
  // Set when the file could not be opened at all: that is not a verdict on
  // a snapshot but a wrong path (6) or a permission (7), for the caller to fail with.
  std::optional<base::Error> cannot_open;
};
// Reads the file once in constant memory: size % 512 == 32 and the last 32
// bytes equal the sha256 of everything before them (docs/rules.md#snapshot-stream).
SnapshotFileReport verify_snapshot_file(const std::string& path);
nlohmann::ordered_json snapshot_file_document(const SnapshotFileReport& r);
output::View snapshot_file_view();

// snapshot save --via-cr: an EtcdSnapshot the operator's controller runs
// (docs/rules.md#etcdsnapshot). Refused (3) when the operator does not run or the cluster
// is paused; waits for Complete or Failed up to `timeout` (4).
struct SnapshotCrRequest {
  std::string name;  // default <c>-<UTC yyyymmdd-hhmmss>
  std::string pvc, sub_path;
  std::string s3_endpoint, s3_bucket, s3_key, s3_secret, s3_region;
  bool s3_force_path_style = false;
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
};
// The EtcdSnapshot object to create (pure).
base::Result<nlohmann::json> snapshot_cr(const Target& t, const SnapshotCrRequest& r,
                                        std::chrono::system_clock::time_point now);
base::Result<nlohmann::ordered_json> snapshot_via_cr(kube::Client& kube, const Target& t, const SnapshotCrRequest& r,
                                                    const PhaseProgress& progress = {});

// EtcdSnapshot CRs of a namespace (optionally of one cluster: spec.clusterRef.name).
base::Result<nlohmann::ordered_json> snapshot_list(kube::Client& kube, const std::string& ns, const std::string& cluster);
base::Result<nlohmann::ordered_json> snapshot_get(kube::Client& kube, const std::string& ns, const std::string& name);
nlohmann::ordered_json snapshot_row(const nlohmann::json& cr);
output::View snapshot_cr_view();

}  // namespace admin
