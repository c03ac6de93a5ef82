#include "etcd/errors.h"

#include <doctest/doctest.h>
#include <grpcpp/support/status.h>

using base::ErrorKind;
using etcd::map_error;

namespace {
constexpr int kFailedPrecondition = static_cast<int>(grpc::StatusCode::FAILED_PRECONDITION);
constexpr int kUnavailable = static_cast<int>(grpc::StatusCode::UNAVAILABLE);
constexpr int kNotFound = static_cast<int>(grpc::StatusCode::NOT_FOUND);
}  // namespace

TEST_CASE("membership errors are told apart by etcd's description (docs/rules.md#membership-errors)") {
  struct Row {
    const char* description;
    const char* reason;
    ErrorKind kind;
  };
  const Row rows[] = {
      {"etcdserver: can only promote a learner member which is in sync with leader", "LearnerNotReady",
       ErrorKind::Failed},
      {"etcdserver: can only promote a learner member", "MemberNotLearner", ErrorKind::Failed},
      {"etcdserver: member not found", "MemberNotFound", ErrorKind::NotFound},
      {"etcdserver: too many learner members in cluster", "TooManyLearners", ErrorKind::Failed},
      {"etcdserver: Peer URLs already exists", "PeerURLExists", ErrorKind::Failed},
      {"etcdserver: re-configuration failed due to not enough started members", "UnhealthyCluster",
       ErrorKind::Refused},
      {"etcdserver: unhealthy cluster", "UnhealthyCluster", ErrorKind::Refused},
      {"etcdserver: not leader", "NotLeader", ErrorKind::Failed},
      {"etcdserver: bad leader transferee", "BadLeaderTransferee", ErrorKind::Failed},
      {"etcdserver: mvcc: database space exceeded", "NoSpace", ErrorKind::Failed},
      {"etcdserver: mvcc: required revision has been compacted", "Compacted", ErrorKind::Failed},
      {"etcdserver: authentication failed, invalid user ID or password", "AuthFailed", ErrorKind::PermissionDenied},
      {"auth: authentication failed, password was given for no password user", "NoPasswordUser",
       ErrorKind::PermissionDenied},
      {"etcdserver: invalid auth token", "InvalidAuthToken", ErrorKind::PermissionDenied},
      {"etcdserver: user name is empty", "CredentialsRequired", ErrorKind::PermissionDenied},
      {"etcdserver: permission denied", "PermissionDenied", ErrorKind::PermissionDenied},
      {"etcdserver: authentication is not enabled", "AuthNotEnabled", ErrorKind::Failed},
      {"etcdserver: user name not found", "UserNotFound", ErrorKind::NotFound},
      {"etcdserver: request timed out", "RequestTimeout", ErrorKind::Timeout},
  };
  for (const auto& r : rows) {
    CAPTURE(r.description);
    auto e = map_error(kFailedPrecondition, r.description, "MemberPromote", "member 000000000000000a");
    CHECK(e.reason == r.reason);
    CHECK(e.kind == r.kind);
    CHECK(e.status == kFailedPrecondition);
    CHECK(e.object == "member 000000000000000a");
    CHECK(e.message.find(r.description) != std::string::npos);
    CHECK(e.message.rfind("MemberPromote failed", 0) == 0);
  }
}

TEST_CASE("is_compacted reads the reason, whatever the text around it") {
  CHECK(etcd::is_compacted(etcd::map_error(11, "etcdserver: mvcc: required revision has been compacted", "HashKV", "x")));
  CHECK_FALSE(etcd::is_compacted(etcd::map_error(11, "etcdserver: mvcc: required revision is a future revision", "HashKV", "x")));
  // An object named after compaction is not a compaction.
  CHECK_FALSE(etcd::is_compacted(etcd::map_error(14, "connection refused", "HashKV", "compacted-member")));
}

TEST_CASE("leader changed is not a connection problem, though etcd sends it as Unavailable") {
  auto e = map_error(kUnavailable, "etcdserver: leader changed", "Put", "member 000000000000000a");
  CHECK(e.reason == "LeaderChanged");
  CHECK(e.kind == ErrorKind::Failed);
  CHECK(e.hint.find("run it again") != std::string::npos);
  CHECK(e.hint.find("server name") == std::string::npos);
  auto busy = map_error(kUnavailable, "etcdserver: too many requests", "Put", "");
  CHECK(busy.reason == "TooManyRequests");
  CHECK(busy.hint.find("server name") == std::string::npos);
}

TEST_CASE("the learner refusal is matched whatever its code (Unavailable on 3.4/3.5, FailedPrecondition on 3.6)") {
  for (int code : {kUnavailable, kFailedPrecondition}) {
    auto e = map_error(code, "etcdserver: rpc not supported for learner", "MemberList", "");
    CHECK(e.reason == "NotSupportedForLearner");
    CHECK(e.kind == ErrorKind::Failed);
  }
}

TEST_CASE("an unreachable endpoint is CannotConnect, a deadline is Timeout") {
  auto u = map_error(kUnavailable, "failed to connect to all addresses; last error: Connection refused", "Status",
                     "endpoint https://127.1.0.2:2379");
  CHECK(u.kind == ErrorKind::CannotConnect);
  CHECK(u.reason == "Unavailable");
  CHECK(u.message.find("Connection refused") != std::string::npos);
  CHECK_FALSE(u.hint.empty());

  auto d = map_error(static_cast<int>(grpc::StatusCode::DEADLINE_EXCEEDED), "Deadline Exceeded", "Status", "x");
  CHECK(d.kind == ErrorKind::Timeout);
  CHECK(d.reason == "DeadlineExceeded");
}

TEST_CASE("gRPC permission codes map to PermissionDenied, NOT_FOUND to NotFound, others to Failed") {
  CHECK(map_error(static_cast<int>(grpc::StatusCode::UNAUTHENTICATED), "x", "c", "").kind ==
        ErrorKind::PermissionDenied);
  CHECK(map_error(static_cast<int>(grpc::StatusCode::PERMISSION_DENIED), "x", "c", "").kind ==
        ErrorKind::PermissionDenied);
  CHECK(map_error(kNotFound, "x", "c", "").kind == ErrorKind::NotFound);
  CHECK(map_error(static_cast<int>(grpc::StatusCode::INTERNAL), "x", "c", "").kind == ErrorKind::Failed);
}

TEST_CASE("from_status reads code and description of a grpc::Status") {
  grpc::Status st(grpc::StatusCode::NOT_FOUND, "etcdserver: member not found");
  auto e = etcd::from_status(st, "MemberRemove", "member 0000000000000001");
  CHECK(e.reason == "MemberNotFound");
  CHECK(e.status == kNotFound);
}

TEST_CASE("member objects name the member and its hex ID") {
  CHECK(etcd::member_object("c-1", 0x8e9e05c52164694dULL) == "member \"c-1\" (8e9e05c52164694d)");
  CHECK(etcd::member_object("", 10) == "member 000000000000000a");
}

TEST_CASE("is_answer_lost: a dropped connection or a passed deadline, not etcd's refusal") {
  CHECK(etcd::is_answer_lost(etcd::map_error(14, "Socket closed", "MoveLeader", "x")));
  CHECK(etcd::is_answer_lost(etcd::map_error(4, "Deadline Exceeded", "MemberAdd", "x")));
  CHECK_FALSE(etcd::is_answer_lost(etcd::map_error(9, "etcdserver: Peer URLs already exists", "MemberAdd", "x")));
  CHECK_FALSE(etcd::is_answer_lost(etcd::map_error(3, "etcdserver: bad leader transferee", "MoveLeader", "x")));
}
