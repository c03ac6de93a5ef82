#include "admin/member_handover.h"

#include <doctest/doctest.h>

namespace {

admin::VoterStatus answer(std::uint64_t id, std::uint64_t leader, std::uint64_t applied) {
  admin::VoterStatus s;
  s.id = id;
  s.endpoint = "https://10.0.0." + std::to_string(id) + ":2379";
  s.answered = true;
  s.healthy = true;
  s.leader = leader;
  s.applied = applied;
  return s;
}

admin::VoterStatus silent(std::uint64_t id) {
  admin::VoterStatus s;
  s.id = id;
  return s;
}

}  // namespace

TEST_CASE("a target that does not lead needs no handover") {
  auto h = admin::plan_handover({answer(1, 2, 10), answer(2, 2, 10), answer(3, 2, 10)}, 1);
  CHECK(h.kind == admin::Handover::Kind::NotLeader);
  CHECK(h.why == "the leader is 0000000000000002");
}

TEST_CASE("the leader hands over to the healthy voter with the highest applied index, from its own endpoint") {
  auto behind = answer(2, 1, 5);
  auto ahead = answer(3, 1, 9);
  auto h = admin::plan_handover({answer(1, 1, 9), behind, ahead}, 1);
  REQUIRE(h.kind == admin::Handover::Kind::Move);
  CHECK(h.to == 3);
  CHECK(h.leader_endpoint == "https://10.0.0.1:2379");
  // Not to a learner, an unhealthy member or one that does not answer.
  auto learner = answer(3, 1, 99);
  learner.learner = true;
  auto alarmed = answer(4, 1, 99);
  alarmed.healthy = false;
  h = admin::plan_handover({answer(1, 1, 9), behind, learner, alarmed, silent(5)}, 1);
  REQUIRE(h.kind == admin::Handover::Kind::Move);
  CHECK(h.to == 2);
}

TEST_CASE("the target's own answer decides over a follower that still names it") {
  // Right after a handover a follower may not have heard of the new leader yet.
  auto h = admin::plan_handover({answer(1, 3, 9), answer(2, 1, 9), answer(3, 3, 9)}, 1);
  CHECK(h.kind == admin::Handover::Kind::NotLeader);
  // The old leader that just stepped down knows no leader yet; the others name the new one.
  CHECK(admin::plan_handover({answer(1, 0, 9), answer(2, 3, 9), answer(3, 3, 9)}, 1).kind ==
        admin::Handover::Kind::NotLeader);
  // A target that knows no leader while the others still name it: an election, not a handover.
  CHECK(admin::plan_handover({answer(1, 0, 9), answer(2, 1, 9), answer(3, 1, 9)}, 1).kind ==
        admin::Handover::Kind::Cannot);
  // And the target that says it leads, leads.
  h = admin::plan_handover({answer(1, 1, 9), answer(2, 3, 9), answer(3, 3, 9)}, 1);
  CHECK(h.kind == admin::Handover::Kind::Move);
}

TEST_CASE("cannot: the leader does not answer, nobody to hand over to, no leader known") {
  auto h = admin::plan_handover({silent(1), answer(2, 1, 9), answer(3, 1, 9)}, 1);
  CHECK(h.kind == admin::Handover::Kind::Cannot);
  CHECK(h.why.find("does not answer Status") != std::string::npos);
  // A target that does not answer and that nobody names as leader is not the leader.
  CHECK(admin::plan_handover({silent(1), answer(2, 2, 9), answer(3, 2, 9)}, 1).kind ==
        admin::Handover::Kind::NotLeader);
  h = admin::plan_handover({answer(1, 1, 9), silent(2)}, 1);
  CHECK(h.kind == admin::Handover::Kind::Cannot);
  CHECK(h.why == "no healthy voter to hand leadership to");
  h = admin::plan_handover({answer(1, 0, 9), answer(2, 0, 9)}, 1);
  CHECK(h.kind == admin::Handover::Kind::Cannot);
  CHECK(h.why.find("election") != std::string::npos);
  CHECK(admin::plan_handover({silent(1), silent(2)}, 1).kind == admin::Handover::Kind::Cannot);
}
