// What an operator-mediated `member add|remove|replace --wait` waits for,
// judged from one reading of the live state (member_exec reads it again on
// every poll). The operator finishes a change in several passes (adopt the
// spec, create the EtcdMember, MemberAddAsLearner, the Pod, promote, sync
// isVoter, the status), so "done" is the state it leaves at rest, not one of
// its intermediate writes. Pure: no API, no etcd.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "admin/member_plan.h"

namespace admin {

struct WaitVerdict {
  bool done = false;
  std::string text;         // where it stands: the progress line, or the outcome once done
  std::string cause;        // why it stands there, when known (the error a member's Status got)
  std::string member;       // settled: an EtcdMember that was not there when planned
  std::uint64_t id = 0;     // its etcd member ID
};

// The cluster is at rest with `want` members: spec.replicas, observed.replicas
// and status.readyMembers are `want`, Progressing=False, no EtcdMember is
// Terminating or pending, each running one is Ready with a memberID that etcd
// lists as a voter that answers, isVoter true and the Pod labelled voter, and
// etcd lists exactly those members (no learner, no stray). `before`: the
// EtcdMember names at planning time; a member not among them is reported.
WaitVerdict judge_settled(const LiveState& s, long long want, const std::vector<std::string>& before);

// The removed member is gone: etcd lists neither `id`, `name` nor `peer_url`,
// and the EtcdMember `name` no longer exists.
WaitVerdict judge_removed(const LiveState& s, const std::string& name, std::uint64_t id, const std::string& peer_url);

}  // namespace admin
