#include "etcd/resend.h"

#include <doctest/doctest.h>
#include <grpcpp/support/status.h>

#include "etcd/errors.h"

using etcd::Resend;

namespace {

base::Error answer(grpc::StatusCode code, const char* description) {
  return etcd::map_error(static_cast<int>(code), description, "Put", "endpoint https://10.0.0.1:2379");
}

base::Error not_sent() {
  auto e = base::make_error(base::ErrorKind::CannotConnect, "cannot reach etcd", "endpoint x");
  e.reason = etcd::reason::kNotSent;
  return e;
}

}  // namespace

TEST_CASE("a key write goes to the next member only when etcd did not propose it") {
  // Refused before the proposal, or never sent: applied nowhere.
  for (const auto& e : {answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: too many requests"),
                        answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: no leader"),
                        answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: rpc not supported for learner"),
                        answer(grpc::StatusCode::UNKNOWN, "raft proposal dropped"), not_sent()}) {
    CAPTURE(e.message);
    CHECK(etcd::resend(e, Resend::kUnproposed));
    CHECK(etcd::resend(e, Resend::kRefusedRepeat));
    CHECK(etcd::resend(e, Resend::kRead));
  }
  // Sent, and perhaps committed by the others: a resend would apply it twice.
  for (const auto& e : {answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: leader changed"),
                        answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: server stopped"),
                        answer(grpc::StatusCode::UNAVAILABLE, "Socket closed"),
                        answer(grpc::StatusCode::UNKNOWN, "raft: stopped"),
                        answer(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"),
                        answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: request timed out")}) {
    CAPTURE(e.message);
    CHECK_FALSE(etcd::resend(e, Resend::kUnproposed));
  }
}

TEST_CASE("membership and auth writes go on after a lost answer, since etcd refuses their repeat; reads after any") {
  CHECK(etcd::resend(answer(grpc::StatusCode::UNAVAILABLE, "Socket closed"), Resend::kRefusedRepeat));
  CHECK(etcd::resend(answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: leader changed"), Resend::kRefusedRepeat));
  // A timeout may still apply later, after the resend's answer: only reads.
  for (const auto& e : {answer(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"),
                        answer(grpc::StatusCode::UNKNOWN, "raft: stopped")}) {
    CAPTURE(e.message);
    CHECK_FALSE(etcd::resend(e, Resend::kRefusedRepeat));
    CHECK(etcd::resend(e, Resend::kRead));
  }
}

TEST_CASE("answers about the call itself are the same on every member: never resent") {
  for (const char* d : {"etcdserver: permission denied", "etcdserver: mvcc: database space exceeded",
                        "etcdserver: member not found", "etcdserver: user name already exists"}) {
    CAPTURE(d);
    auto e = answer(grpc::StatusCode::FAILED_PRECONDITION, d);
    CHECK_FALSE(etcd::resend(e, Resend::kRead));
    CHECK_FALSE(etcd::resend(e, Resend::kRefusedRepeat));
    CHECK_FALSE(etcd::resend(e, Resend::kUnproposed));
  }
}

TEST_CASE("a key write's error says when it may have applied") {
  auto lost = etcd::maybe_applied(answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: leader changed"));
  CHECK(lost.hint.find("may or may not have been applied") != std::string::npos);
  auto timeout = etcd::maybe_applied(answer(grpc::StatusCode::UNAVAILABLE, "etcdserver: request timed out"));
  CHECK(timeout.hint.find("may or may not") != std::string::npos);
  auto stopped = etcd::maybe_applied(answer(grpc::StatusCode::UNKNOWN, "raft: stopped"));
  CHECK(stopped.reason == etcd::reason::kRaftStopped);
  CHECK(stopped.hint.find("may or may not") != std::string::npos);
  // etcd's own refusal keeps its hint: nothing was applied.
  auto denied = etcd::maybe_applied(answer(grpc::StatusCode::PERMISSION_DENIED, "etcdserver: permission denied"));
  CHECK(denied.hint.find("may or may not") == std::string::npos);
}
