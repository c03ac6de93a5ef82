#include "admin/member_handover.h"

#include <map>

#include "etcd/member_id.h"

namespace admin {

Handover plan_handover(const std::vector<VoterStatus>& statuses, std::uint64_t target) {
  Handover h;
  const VoterStatus* self = nullptr;
  std::map<std::uint64_t, int> named;
  for (const auto& s : statuses) {
    if (!s.answered) continue;
    if (s.id == target) self = &s;
    else if (s.leader != 0) ++named[s.leader];
  }
  // A member knows when it leads; the others' view counts when it does not
  // answer, or knows no leader itself (it just stepped down).
  std::uint64_t leader = self != nullptr ? self->leader : 0;
  if (leader == 0) {
    int best = 0;
    for (const auto& [id, n] : named) {
      if (n > best) leader = id, best = n;
    }
    if (self != nullptr && leader == target) leader = 0;  // a view the target itself contradicts
  }
  const std::string who = etcd::format_member_id(target);
  if (leader == 0) {
    // Nobody answers, or an election is under way: the target may win it.
    h.kind = Handover::Kind::Cannot;
    h.why = self == nullptr && named.empty() ? "no member answers Status, so who leads is unknown"
                                             : "no leader is known now (an election is under way)";
    return h;
  }
  if (leader != target) {
    h.why = "the leader is " + etcd::format_member_id(leader);
    return h;
  }
  if (self == nullptr) {
    h.kind = Handover::Kind::Cannot;
    h.why = "the other members name " + who + " as leader, but it does not answer Status: MoveLeader must go to it";
    return h;
  }
  const VoterStatus* best = nullptr;
  for (const auto& s : statuses) {
    if (!s.answered || !s.healthy || s.learner || s.id == target) continue;
    if (best == nullptr || s.applied > best->applied) best = &s;
  }
  if (best == nullptr) {
    h.kind = Handover::Kind::Cannot;
    h.why = "no healthy voter to hand leadership to";
    return h;
  }
  h.kind = Handover::Kind::Move;
  h.leader_endpoint = self->endpoint;
  h.to = best->id;
  return h;
}

}  // namespace admin
