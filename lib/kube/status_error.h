// Turns an apiserver answer that is not a success into a base::Error: the
// Status body (code, reason, message, details, causes) parsed, the verb,
// resource and namespace that were refused named, and the error kind chosen
// so that callers can tell 404 / 409 / 410 / 422 apart by `reason`.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"
#include "kube/resource.h"

namespace kube {

// What the request was about, for the error text.
struct RequestContext {
  std::string verb;  // Kubernetes verb: get, list, watch, create, update, patch, delete
  Resource resource;
  std::string ns;
  std::string name;
  std::string subresource;
};

// The Status reasons of the apiserver that callers and this file branch on
// (docs/step-engine.md#error-reasons: never a literal at the comparison).
inline constexpr const char* kReasonAlreadyExists = "AlreadyExists";
inline constexpr const char* kReasonConflict = "Conflict";
inline constexpr const char* kReasonInvalid = "Invalid";
inline constexpr const char* kReasonExpired = "Expired";
// Reasons beyond the Status reasons of the apiserver.
inline constexpr const char* kReasonNotServed = "NotServed";

// `http_status` >= 400 and the response body (a Status, or plain text).
base::Error status_error(int http_status, std::string_view body, const RequestContext& ctx);

// "create etcdclusters.etcd-operator.cozystack.io in namespace \"x\"" (no
// namespace part for cluster-scoped resources or all namespaces).
std::string describe_request(const RequestContext& ctx);

// What callers branch on, read off an error status_error made: the object
// is absent (404 with a name); the object changed since it was read (409
// Conflict: read again and decide again); create found it already there.
bool is_not_found(const base::Error& e);
bool is_conflict(const base::Error& e);
bool is_already_exists(const base::Error& e);
// A watch's resourceVersion or a list's continue token is too old (410 Expired).
bool is_expired(const base::Error& e);
// The API group or version is not served (no CustomResourceDefinition).
bool is_not_served(const base::Error& e);

}  // namespace kube
