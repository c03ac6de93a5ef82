#include "etcd/resend.h"

#include <utility>

#include "etcd/errors.h"

namespace etcd {

bool resend(const base::Error& e, Resend policy) {
  // Refused before the proposal (etcd's request checks, raft's queue during
  // a leadership transfer): the call did not apply, whatever it was.
  if (e.reason == reason::kTooManyRequests || e.reason == reason::kNoLeader ||
      e.reason == reason::kLearnerNotSupported || e.reason == reason::kProposalDropped ||
      e.reason == reason::kNotSent)
    return true;
  if (policy == Resend::kUnproposed) return false;
  // Leader changed comes with code Unavailable and was always resent as
  // such; its own reason only changes the hint.
  if (e.reason == reason::kUnavailable || e.reason == reason::kLeaderChanged) return true;
  // A timed-out write may still apply, and a stopped member's too; only
  // reads move on.
  return policy == Resend::kRead && (e.reason == reason::kDeadlineExceeded || e.reason == reason::kRaftStopped);
}

base::Error maybe_applied(base::Error e) {
  if (e.reason == reason::kUnavailable || e.reason == reason::kLeaderChanged ||
      e.reason == reason::kDeadlineExceeded || e.reason == reason::kRequestTimeout ||
      e.reason == reason::kRaftStopped || e.kind == base::ErrorKind::CannotConnect ||
      e.kind == base::ErrorKind::Timeout)
    e.hint = "the write may or may not have been applied: read the key to know before writing it again";
  return e;
}

}  // namespace etcd
