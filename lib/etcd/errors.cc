#include "etcd/errors.h"

#include <grpcpp/support/status.h>

#include <cstdint>

#include "etcd/member_id.h"

namespace etcd {

namespace {

struct Known {
  const char* description;  // etcd's text, matched as a substring
  const char* reason;
  base::ErrorKind kind;
  const char* hint;
};

// Longest first where one text is a prefix of another ("can only promote a
// learner member" vs "... which is in sync with leader").
const Known kKnown[] = {
    {"can only promote a learner member which is in sync with leader", reason::kLearnerNotReady,
     base::ErrorKind::Failed, "the learner has not caught up with the leader yet; wait and retry"},
    {"can only promote a learner member", reason::kMemberNotLearner, base::ErrorKind::Failed,
     "the member is already a voter"},
    {"member not found", reason::kMemberNotFound, base::ErrorKind::NotFound,
     "the member was removed or never existed; list members to see the current IDs"},
    {"member ID already exist", reason::kMemberExists, base::ErrorKind::Failed, ""},
    {"Peer URLs already exists", reason::kPeerURLExists, base::ErrorKind::Failed,
     "a member with this peer URL is already registered; remove it first or use another URL"},
    {"too many learner members in cluster", reason::kTooManyLearners, base::ErrorKind::Failed,
     "promote or remove the existing learner first"},
    {"re-configuration failed due to not enough started members", reason::kUnhealthyCluster,
     base::ErrorKind::Refused, "the change would leave the cluster without quorum; bring the stopped members back first"},
    {"unhealthy cluster", reason::kUnhealthyCluster, base::ErrorKind::Refused,
     "the change would leave the cluster without quorum; bring the stopped members back first"},
    {"bad leader transferee", reason::kBadLeaderTransferee, base::ErrorKind::Failed,
     "the target must be a started voting member other than the leader"},
    {"etcdserver: not leader", reason::kNotLeader, base::ErrorKind::Failed, "send the call to the current leader"},
    // etcd sends both with code Unavailable, but the member answered: the
    // connection hint (endpoint, CA, server name) would send the user to the
    // wrong place.
    {"etcdserver: leader changed", reason::kLeaderChanged, base::ErrorKind::Failed,
     "an election happened during the call; run it again (a write may or may not have been applied)"},
    {"etcdserver: too many requests", reason::kTooManyRequests, base::ErrorKind::Failed,
     "the member is behind on applying entries; retry in a moment"},
    {"etcdserver: no leader", reason::kNoLeader, base::ErrorKind::Failed, "the cluster has no leader (lost quorum?)"},
    {"rpc not supported for learner", reason::kLearnerNotSupported, base::ErrorKind::Failed,
     "the endpoint is a learner; use a voting member"},
    {"database space exceeded", reason::kNoSpace, base::ErrorKind::Failed,
     "compact and defragment, then disarm the NOSPACE alarm"},
    {"required revision has been compacted", reason::kCompacted, base::ErrorKind::Failed, ""},
    {"required revision is a future revision", reason::kFutureRevision, base::ErrorKind::Failed, ""},
    {"password was given for no password user", reason::kNoPasswordUser, base::ErrorKind::PermissionDenied,
     "the user has no password; it authenticates by client certificate"},
    {"authentication failed, invalid user ID or password", reason::kAuthFailed, base::ErrorKind::PermissionDenied,
     "check the user name and password"},
    {"invalid auth token", reason::kInvalidAuthToken, base::ErrorKind::PermissionDenied, "check the user and password"},
    {"user name is empty", reason::kCredentialsRequired, base::ErrorKind::PermissionDenied,
     "authentication is enabled: give credentials"},
    {"insufficient credentials", reason::kCredentialsRequired, base::ErrorKind::PermissionDenied,
     "authentication is enabled: give credentials"},
    {"permission denied", reason::kPermissionDenied, base::ErrorKind::PermissionDenied, ""},
    {"authentication is not enabled", reason::kAuthNotEnabled, base::ErrorKind::Failed, ""},
    {"invalid auth management", reason::kInvalidAuthManagement, base::ErrorKind::Refused,
     "root cannot be deleted or lose its role while authentication is enabled"},
    {"user name already exists", reason::kUserExists, base::ErrorKind::Failed, ""},
    {"user name not found", reason::kUserNotFound, base::ErrorKind::NotFound, ""},
    {"role name not found", reason::kRoleNotFound, base::ErrorKind::NotFound, ""},
    {"root user does not exist", reason::kRootUserMissing, base::ErrorKind::Refused,
     "add user root with role root before enabling authentication"},
    {"root user does not have root role", reason::kRootUserMissing, base::ErrorKind::Refused,
     "grant role root to user root before enabling authentication"},
    // raft's queue refused it (a leadership transfer is under way): never
    // proposed, so never applied.
    {"raft proposal dropped", reason::kProposalDropped, base::ErrorKind::Failed,
     "the leadership was moving; the write was not applied: run it again"},
    // The member stopped (removed, or shutting down) while the call waited:
    // a write it had passed on may still commit on the others.
    {"raft: stopped", reason::kRaftStopped, base::ErrorKind::Failed,
     "the member stopped (removed, or shutting down); use another member"},
    {"etcdserver: request timed out", reason::kRequestTimeout, base::ErrorKind::Timeout,
     "the cluster did not commit the request in time; it may still apply"},
    {"corrupt cluster", reason::kCorrupt, base::ErrorKind::Failed, ""},
};

// The description of a connection failure says what gRPC saw; keep it, it
// names the cause (refused, TLS handshake, name mismatch).
base::Error by_code(int code, std::string_view description, std::string_view call, std::string object) {
  std::string what = std::string(call) + " failed";
  std::string desc(description);
  switch (static_cast<grpc::StatusCode>(code)) {
    case grpc::StatusCode::DEADLINE_EXCEEDED: {
      auto e = base::make_error(base::ErrorKind::Timeout, std::string(call) + " timed out", std::move(object),
                               "the member did not answer within the deadline (stopped, paused or overloaded?)");
      e.reason = reason::kDeadlineExceeded;
      return e;
    }
    case grpc::StatusCode::UNAVAILABLE: {
      auto e = base::make_error(base::ErrorKind::CannotConnect, "cannot reach etcd: " + desc, std::move(object),
                               "check that the member runs and the endpoint, CA and server name are right");
      e.reason = reason::kUnavailable;
      return e;
    }
    case grpc::StatusCode::PERMISSION_DENIED:
    case grpc::StatusCode::UNAUTHENTICATED: {
      auto e = base::make_error(base::ErrorKind::PermissionDenied, what + ": " + desc, std::move(object));
      e.reason = reason::kPermissionDenied;
      return e;
    }
    case grpc::StatusCode::NOT_FOUND:
      return base::make_error(base::ErrorKind::NotFound, what + ": " + desc, std::move(object));
    default:
      return base::make_error(base::ErrorKind::Failed, what + ": " + desc, std::move(object));
  }
}

}  // namespace

base::Error map_error(int grpc_code, std::string_view description, std::string_view call, std::string object) {
  for (const auto& k : kKnown) {
    if (description.find(k.description) == std::string_view::npos) continue;
    auto e = base::make_error(k.kind, std::string(call) + " failed: " + std::string(description), std::move(object),
                             k.hint);
    e.reason = k.reason;
    e.status = grpc_code;
    return e;
  }
  auto e = by_code(grpc_code, description, call, std::move(object));
  e.status = grpc_code;
  return e;
}

base::Error from_status(const grpc::Status& status, std::string_view call, std::string object) {
  return map_error(static_cast<int>(status.error_code()), status.error_message(), call, std::move(object));
}

bool is_compacted(const base::Error& e) { return e.reason == reason::kCompacted; }
bool is_plaintext_credentials(const base::Error& e) { return e.reason == reason::kPlaintextCredentials; }
bool is_answer_lost(const base::Error& e) {
  return e.reason == reason::kUnavailable || e.reason == reason::kDeadlineExceeded;
}

std::string member_object(std::string_view name, std::uint64_t id) {
  if (name.empty()) return "member " + format_member_id(id);
  return "member \"" + std::string(name) + "\" (" + format_member_id(id) + ")";
}

std::string endpoint_object(std::string_view endpoint) { return "endpoint " + std::string(endpoint); }

}  // namespace etcd
