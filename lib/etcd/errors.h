// Turns a failed gRPC call into a base::Error. etcd's meaning is in the
// description, not the code (docs/rules.md#membership-errors: the same error has different
// codes across versions), so the table matches the description first.
#pragma once

#include <string>
#include <string_view>

#include "base/error.h"

namespace grpc {
class Status;
}

namespace etcd {

// Stable machine names put in base::Error::reason.
namespace reason {
inline constexpr const char* kLearnerNotReady = "LearnerNotReady";
inline constexpr const char* kMemberNotLearner = "MemberNotLearner";
inline constexpr const char* kMemberNotFound = "MemberNotFound";
inline constexpr const char* kMemberExists = "MemberExists";
inline constexpr const char* kPeerURLExists = "PeerURLExists";
inline constexpr const char* kTooManyLearners = "TooManyLearners";
inline constexpr const char* kUnhealthyCluster = "UnhealthyCluster";
inline constexpr const char* kNotLeader = "NotLeader";
inline constexpr const char* kNoLeader = "NoLeader";
inline constexpr const char* kLeaderChanged = "LeaderChanged";
inline constexpr const char* kTooManyRequests = "TooManyRequests";
inline constexpr const char* kBadLeaderTransferee = "BadLeaderTransferee";
inline constexpr const char* kLearnerNotSupported = "NotSupportedForLearner";
inline constexpr const char* kNoSpace = "NoSpace";
inline constexpr const char* kCompacted = "Compacted";
inline constexpr const char* kFutureRevision = "FutureRevision";
inline constexpr const char* kAuthFailed = "AuthFailed";
inline constexpr const char* kInvalidAuthToken = "InvalidAuthToken";
inline constexpr const char* kNoPasswordUser = "NoPasswordUser";
inline constexpr const char* kCredentialsRequired = "CredentialsRequired";
inline constexpr const char* kPermissionDenied = "PermissionDenied";
inline constexpr const char* kAuthNotEnabled = "AuthNotEnabled";
inline constexpr const char* kInvalidAuthManagement = "InvalidAuthManagement";
inline constexpr const char* kUserExists = "UserExists";
inline constexpr const char* kUserNotFound = "UserNotFound";
inline constexpr const char* kRoleNotFound = "RoleNotFound";
inline constexpr const char* kRootUserMissing = "RootUserMissing";
inline constexpr const char* kRequestTimeout = "RequestTimeout";
inline constexpr const char* kProposalDropped = "ProposalDropped";
inline constexpr const char* kRaftStopped = "RaftStopped";
inline constexpr const char* kCorrupt = "Corrupt";
inline constexpr const char* kDeadlineExceeded = "DeadlineExceeded";
inline constexpr const char* kUnavailable = "Unavailable";
inline constexpr const char* kSnapshotCorrupt = "SnapshotCorrupt";
// Not etcd's: the client refuses to send a password over plaintext.
inline constexpr const char* kPlaintextCredentials = "PlaintextCredentials";
// Not etcd's: the member was not connected, so a call was never sent to it.
inline constexpr const char* kNotSent = "NotSent";
}  // namespace reason

// grpc_code is a grpc::StatusCode value; call names the RPC ("MemberPromote");
// object is what it was about (a member, an endpoint).
base::Error map_error(int grpc_code, std::string_view description, std::string_view call, std::string object);
base::Error from_status(const grpc::Status& status, std::string_view call, std::string object);

// What callers branch on (docs/step-engine.md#error-reasons): the revision
// asked for is at or below the compact revision.
bool is_compacted(const base::Error& e);
// The client refused to send credentials over a plaintext connection.
bool is_plaintext_credentials(const base::Error& e);
// A call that got no answer (the connection dropped, the deadline passed):
// etcd may still have applied it, so a write's step reads the state again
// before it calls the write failed (docs/server-faults.md#lost-answers-to-etcds-writes).
bool is_answer_lost(const base::Error& e);

// The object text for a member: `member "name" (8e9e05c52164694d)`.
std::string member_object(std::string_view name, std::uint64_t id);
std::string endpoint_object(std::string_view endpoint);

}  // namespace etcd
