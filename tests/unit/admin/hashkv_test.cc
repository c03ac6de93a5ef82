#include "admin/hashkv.h"

#include <doctest/doctest.h>

using admin::HashVerdict;
using admin::MemberHash;

namespace {

MemberHash answered(const std::string& name, std::uint32_t hash, std::int64_t compact = 0) {
  MemberHash m;
  m.name = name;
  m.hash = hash;
  m.compact_revision = compact;
  m.hash_revision = 100;
  return m;
}

}  // namespace

TEST_CASE("the shared revision is the lowest current revision, above the compact revision") {
  CHECK(admin::shared_revision({120, 118, 125}, 0) == 118);
  CHECK(admin::shared_revision({120, 118, 125}, 117) == 118);
  // HashKV at the compact revision itself answers "compacted".
  CHECK_FALSE(admin::shared_revision({120, 118, 125}, 118).has_value());
  CHECK_FALSE(admin::shared_revision({120, 118}, 119).has_value());
  CHECK_FALSE(admin::shared_revision({}, 0).has_value());
  // 0 asks each member for its own latest revision: never a shared one.
  CHECK_FALSE(admin::shared_revision({0, 5}, 0).has_value());
}

TEST_CASE("equal hashes at one compact revision are consistent") {
  std::vector<MemberHash> ms{answered("a", 7), answered("b", 7), answered("c", 7)};
  auto c = admin::compare_hashes(ms);
  CHECK(c.verdict == HashVerdict::Consistent);
  CHECK(c.differing.empty());
  CHECK(c.message == "3 members agree");
  for (const auto& m : ms) CHECK(m.state == "agrees");
}

TEST_CASE("the member outside the majority is named") {
  std::vector<MemberHash> ms{answered("a", 7), answered("b", 9), answered("c", 7)};
  auto c = admin::compare_hashes(ms);
  CHECK(c.verdict == HashVerdict::Inconsistent);
  CHECK(c.differing == std::vector<std::string>{"b"});
  CHECK(ms[0].state == "agrees");
  CHECK(ms[1].state == "differs");
  CHECK(c.message == "members disagree: b differ from the others");
}

TEST_CASE("a split without a majority names every member of it") {
  std::vector<MemberHash> ms{answered("b", 1), answered("a", 2)};
  auto c = admin::compare_hashes(ms);
  CHECK(c.verdict == HashVerdict::Inconsistent);
  CHECK(c.differing == std::vector<std::string>{"a", "b"});
}

TEST_CASE("hashes at different compact revisions are not compared with each other") {
  // A compaction applied on a but not yet on b: different hashes, same data.
  std::vector<MemberHash> ms{answered("a", 1, 50), answered("b", 2, 0), answered("c", 2, 0)};
  auto c = admin::compare_hashes(ms);
  CHECK(c.verdict == HashVerdict::Incomplete);
  CHECK(c.compaction_moved);
  CHECK(c.differing.empty());
}

TEST_CASE("a disagreement within one compact revision wins over a moved compaction") {
  std::vector<MemberHash> ms{answered("a", 1, 50), answered("b", 2, 0), answered("c", 3, 0), answered("d", 2, 0)};
  auto c = admin::compare_hashes(ms);
  CHECK(c.verdict == HashVerdict::Inconsistent);
  CHECK(c.differing == std::vector<std::string>{"c"});
}

TEST_CASE("a member without a hash makes the result incomplete; learners are skipped") {
  MemberHash down;
  down.name = "c";
  down.error = "unreachable";
  MemberHash learner;
  learner.name = "d";
  learner.learner = true;
  std::vector<MemberHash> ms{answered("a", 7), answered("b", 7), down, learner};
  auto c = admin::compare_hashes(ms);
  CHECK(c.verdict == HashVerdict::Incomplete);
  CHECK(c.message == "2 members agree; no hash from c");
  CHECK(ms[2].state == "error");
  CHECK(ms[3].state == "skipped");

  std::vector<MemberHash> only{answered("a", 7), learner};
  CHECK(admin::compare_hashes(only).verdict == HashVerdict::Consistent);
}

TEST_CASE("exit codes: 0 consistent, 8 inconsistent, 5 partial, 1 no hash at all") {
  admin::HashKVReport r;
  r.members = {answered("a", 7), answered("b", 9), answered("c", 7)};
  r.comparison = admin::compare_hashes(r.members);
  CHECK(admin::hashkv_exit_code(r) == 8);
  r.members = {answered("a", 7), answered("b", 7)};
  r.comparison = admin::compare_hashes(r.members);
  CHECK(admin::hashkv_exit_code(r) == 0);
  MemberHash down;
  down.name = "c";
  r.members.push_back(down);
  r.comparison = admin::compare_hashes(r.members);
  CHECK(admin::hashkv_exit_code(r) == 5);
  r.members = {down};
  r.comparison = admin::compare_hashes(r.members);
  CHECK(admin::hashkv_exit_code(r) == 1);
}

TEST_CASE("the document carries hash, hash_revision and compact_revision per member") {
  admin::HashKVReport r;
  r.revision = 100;
  r.attempts = 1;
  r.members = {answered("a", 7, 40), answered("b", 9, 40), answered("c", 7, 40)};
  r.members[0].id = 0x8e9e05c52164694dULL;
  r.comparison = admin::compare_hashes(r.members);
  auto doc = admin::hashkv_document(r);
  CHECK(doc["verdict"] == "inconsistent");
  CHECK(doc["differing"] == nlohmann::ordered_json::array({"b"}));
  CHECK(doc["members"][0]["id"] == "8e9e05c52164694d");
  CHECK(doc["members"][0]["hash"] == 7);
  CHECK(doc["members"][0]["hash_revision"] == 100);
  CHECK(doc["members"][0]["compact_revision"] == 40);
  CHECK(doc["members"][1]["state"] == "differs");
  auto text = admin::render_hashkv(doc, output::Format::Table);
  CHECK(text.find("inconsistent at revision 100: members disagree: b differ from the others\n") != std::string::npos);
}
