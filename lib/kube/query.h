// Query strings of the Kubernetes API: list options (selectors, paging),
// write options (dry-run, field manager), delete options, percent-encoding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace kube {

struct ListOptions {
  std::string label_selector;  // "app=etcd,tier!=x"
  std::string field_selector;  // "metadata.name=c"
  int64_t limit = 0;           // 0: no paging
  std::string continue_token;
  std::string resource_version;
};

struct WriteOptions {
  bool dry_run = false;        // server-side: dryRun=All
  std::string field_manager;   // empty: the server's default
};

enum class PatchType { Merge, Json, Strategic, Apply };

struct PatchOptions {
  bool dry_run = false;
  std::string field_manager;  // required by the server for Apply
  bool force = false;         // Apply: take over conflicting fields
  std::string subresource;    // "status" for a status patch
  // Whether a retry after a lost response is safe. Unset: merge and apply
  // patches are (applying them twice gives the same object), JSON and
  // strategic patches are not (an "add" to a list would apply twice).
  std::optional<bool> idempotent;
};

enum class Propagation { Orphan, Background, Foreground };

struct DeleteOptions {
  std::optional<Propagation> propagation;
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::optional<int64_t> grace_period_seconds;
  bool dry_run = false;
};

// Percent-encodes everything but RFC 3986 unreserved characters.
std::string query_escape(std::string_view s);
// As query_escape, for one path segment (an object name).
std::string path_escape(std::string_view s);

// "?a=b&c=d" from pairs (values escaped); "" when empty.
std::string build_query(const std::vector<std::pair<std::string, std::string>>& params);

std::vector<std::pair<std::string, std::string>> list_params(const ListOptions& o);
std::vector<std::pair<std::string, std::string>> write_params(const WriteOptions& o);
std::vector<std::pair<std::string, std::string>> patch_params(PatchType type, const PatchOptions& o);

// The body of a DELETE: a DeleteOptions object (propagation, preconditions).
nlohmann::json delete_body(const DeleteOptions& o);
std::vector<std::pair<std::string, std::string>> delete_params(const DeleteOptions& o);

const char* patch_content_type(PatchType type);
const char* propagation_name(Propagation p);

}  // namespace kube
