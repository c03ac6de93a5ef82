// Who takes leadership before a member change touches the leader
// (docs/break-glass-design.md#leader-handover): the `move-leader` step of
// `member remove|replace|roll`, on both paths, decides from one round of
// Status answers whether the target leads, and to whom it hands over. Pure:
// the answers are inputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace admin {

// One member's Status answer (or none).
struct VoterStatus {
  std::uint64_t id = 0;
  std::string endpoint;
  bool answered = false;
  bool learner = false;
  bool healthy = false;       // answered without errors
  std::uint64_t leader = 0;   // the leader it knows, 0 for none
  std::uint64_t applied = 0;  // raft applied index
};

struct Handover {
  enum class Kind { NotLeader, Move, Cannot };
  Kind kind = Kind::NotLeader;
  std::string leader_endpoint;  // Move: where MoveLeader goes (the target itself)
  std::uint64_t to = 0;         // Move: the transferee
  std::string why;              // NotLeader: who leads; Cannot: the reason
};

// The target's own answer decides whether it leads (a follower may still
// name a leader that just handed over); without one, the leader most others
// name. Leadership goes to the healthy voter with the highest applied index,
// as `kubectl etcd move-leader` picks one.
Handover plan_handover(const std::vector<VoterStatus>& statuses, std::uint64_t target);

}  // namespace admin
