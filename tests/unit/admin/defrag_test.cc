#include "admin/defrag.h"

#include <doctest/doctest.h>

using admin::DefragCandidate;
using admin::DefragRule;

namespace {
constexpr std::int64_t Mi = 1024 * 1024;

DefragCandidate m(std::string name, std::int64_t size, std::int64_t in_use, bool leader = false, bool learner = false,
                  std::int64_t quota = 2048 * Mi) {
  DefragCandidate c;
  c.name = std::move(name);
  c.db_size = size;
  c.db_size_in_use = in_use;
  c.leader = leader;
  c.learner = learner;
  c.quota = quota;
  return c;
}
}  // namespace

TEST_CASE("followers first by name, the leader last, learners after it") {
  auto order = admin::defrag_order({m("c-zz", 0, 0, true), m("c-bb", 0, 0, false, true), m("c-yy", 0, 0),
                                    m("c-aa", 0, 0)});
  REQUIRE(order.size() == 4);
  CHECK(order[0].name == "c-aa");
  CHECK(order[1].name == "c-yy");
  CHECK(order[2].name == "c-zz");
  CHECK(order[3].name == "c-bb");
}

TEST_CASE("free space above the floor (200Mi by default) defragments") {
  DefragRule r;
  CHECK(admin::decide(r, m("a", 500 * Mi, 299 * Mi)).defragment);
  auto d = admin::decide(r, m("a", 500 * Mi, 300 * Mi));  // exactly 200Mi: not above
  CHECK_FALSE(d.defragment);
  CHECK(d.reason == "BelowThreshold");
}

TEST_CASE("--all defragments whatever the free space, but never a learner") {
  DefragRule r;
  r.all = true;
  CHECK(admin::decide(r, m("a", 10, 10)).defragment);
  auto d = admin::decide(r, m("a", 500 * Mi, 0, false, true));
  CHECK_FALSE(d.defragment);
  CHECK(d.reason == "Learner");
}

TEST_CASE("over the quota share, min-reclaim becomes the floor") {
  DefragRule r;
  r.quota_usage_above = 50;
  r.min_reclaim = 32 * Mi;
  // 1100Mi of a 2048Mi quota is above 50%: 40Mi reclaimable is enough.
  CHECK(admin::decide(r, m("a", 1100 * Mi, 1060 * Mi)).defragment);
  // 900Mi is below 50%: the 200Mi floor stays.
  CHECK_FALSE(admin::decide(r, m("a", 900 * Mi, 860 * Mi)).defragment);
}

TEST_CASE("rule validation mirrors EtcdDefrag's schema") {
  DefragRule r;
  CHECK(admin::validate(r, false).ok());
  CHECK(admin::validate(r, true).error().kind == base::ErrorKind::Usage);  // min-reclaim alone
  r.quota_usage_above = 0.5;
  CHECK_FALSE(admin::validate(r, false).ok());
  r.quota_usage_above = 80;
  r.min_reclaim = 300 * Mi;
  CHECK_FALSE(admin::validate(r, true).ok());  // above free-space-above
  r.min_reclaim = 32 * Mi;
  CHECK(admin::validate(r, true).ok());
}

TEST_CASE("outcomes: skipped by the rule succeeds, deferred is blocked, an RPC error failed") {
  std::vector<admin::DefragRow> rows(3);
  rows[0].outcome = "Skipped";
  rows[0].reason = "BelowThreshold";
  rows[1].outcome = "Skipped";
  rows[1].reason = "ClusterNotHealthy";
  rows[2].outcome = "Defragmented";
  auto o = admin::defrag_outcomes(rows);
  CHECK(o == std::vector<base::Outcome>{base::Outcome::Succeeded, base::Outcome::Blocked, base::Outcome::Succeeded});
  rows[2].outcome = "Failed";
  CHECK(admin::defrag_outcomes(rows)[2] == base::Outcome::Failed);
}

TEST_CASE("defrag rows render with EtcdDefrag's member field names and humanized sizes") {
  admin::DefragRow row{"c-aa", 0x1f, "follower", "Defragmented", "", 25'000'000, 5'000'000, ""};
  auto doc = admin::defrag_document({row});
  CHECK(doc[0]["reclaimedBytes"] == 20'000'000);
  CHECK(doc[0]["id"] == "000000000000001f");
  CHECK(output::render(doc, admin::defrag_view(), output::Format::Table) ==
        "NAME   ROLE       OUTCOME        REASON   BEFORE   AFTER    RECLAIMED\n"
        "c-aa   follower   Defragmented   -        25 MB    5.0 MB   20 MB\n");
}
