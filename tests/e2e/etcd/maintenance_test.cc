// Alarms (NOSPACE raised by a small quota), compaction, defragmentation and
// leadership transfer on real etcd 3.4, 3.5 and 3.6.
#include <unistd.h>

#include "etcd_e2e.h"

using namespace etcd_e2e;

namespace {

void nospace_compact_defrag_disarm(const std::string& version) {
  CAPTURE(version);
  e2e::EtcdCluster c(options(version, 3, false, false, {"--quota-backend-bytes", "1048576"}));
  auto cl = client_for(c);
  auto urls = c.client_urls();

  CHECK(must(cl->alarm_list(), "alarm list").empty());

  // Fill the 1 MiB quota.
  const std::string value(64 * 1024, 'x');
  base::Result<etcd::Header> put = etcd::Header{};
  int i = 0;
  for (; i < 200 && put.ok(); ++i) put = cl->put("/fill/" + std::to_string(i), value);
  REQUIRE_MESSAGE(!put.ok(), "the quota was never reached");
  CHECK(put.error().reason == "NoSpace");
  CHECK_FALSE(put.error().hint.empty());

  auto alarms = must(cl->alarm_list(), "alarm list");
  REQUIRE_FALSE(alarms.empty());
  for (const auto& a : alarms) {
    CHECK(a.type == etcd::AlarmType::NoSpace);
    CHECK(std::string(etcd::alarm_name(a.type)) == "NOSPACE");
  }
  // etcdctl sees the same alarm, naming the same member.
  auto ctl_alarms = c.ctl({"alarm", "list"});
  CHECK(ctl_alarms.find("NOSPACE") != std::string::npos);
  std::uint64_t alarm_member = alarms[0].member_id;
  // etcdctl prints the member ID in decimal here.
  CHECK(ctl_alarms.find("memberID:" + std::to_string(alarm_member)) != std::string::npos);

  // The runbook: delete, compact, defragment every member, disarm.
  auto deleted = must(cl->delete_range("/fill/", std::string("/fill0")), "delete");
  CHECK(deleted > 0);
  auto rev = must(cl->range("/", {}), "range").header.revision;
  must(cl->compact(rev, true), "compact");
  std::int64_t before = 0, after = 0;
  for (const auto& u : urls) {
    before += must(cl->status(u), "status").db_size;
    must(cl->defragment(u, std::chrono::system_clock::now() + std::chrono::seconds(30)), "defragment");
    after += must(cl->status(u), "status").db_size;
  }
  CHECK(after < before);
  auto disarmed = must(cl->alarm_disarm_all(), "disarm");
  CHECK_FALSE(disarmed.empty());
  CHECK(must(cl->alarm_list(), "alarm list").empty());
  must(cl->put("/after", "ok"), "put after disarm");

  // A compacted revision is its own error.
  etcd::RangeOptions at1;
  at1.revision = 1;
  auto old = cl->range("/after", at1);
  REQUIRE_FALSE(old.ok());
  CHECK(old.error().reason == "Compacted");
}

void move_leader(const std::string& version) {
  CAPTURE(version);
  e2e::EtcdCluster c(options(version));
  auto cl = client_for(c);
  auto urls = c.client_urls();
  auto all = cl->status_all(urls);
  std::string leader_url, follower_url;
  std::uint64_t follower_id = 0;
  for (auto& r : all) {
    REQUIRE(r.result.ok());
    if (r.result->is_leader()) {
      leader_url = r.endpoint;
    } else if (follower_id == 0) {
      follower_url = r.endpoint;
      follower_id = r.result->header.member_id;
    }
  }
  REQUIRE_FALSE(leader_url.empty());
  // Sent to a follower: not leader.
  auto wrong = cl->move_leader(follower_url, follower_id);
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().reason == "NotLeader");
  must(cl->move_leader(leader_url, follower_id), "move leader");
  auto s = must(cl->status(follower_url), "status");
  CHECK(s.leader == follower_id);
}

}  // namespace

TEST_CASE("NOSPACE alarm, compact, defragment, disarm on etcd 3.4") { nospace_compact_defrag_disarm("3.4"); }
TEST_CASE("NOSPACE alarm, compact, defragment, disarm on etcd 3.5") { nospace_compact_defrag_disarm("3.5"); }
TEST_CASE("NOSPACE alarm, compact, defragment, disarm on etcd 3.6") { nospace_compact_defrag_disarm("3.6"); }

TEST_CASE("move leader on etcd 3.4") { move_leader("3.4"); }
TEST_CASE("move leader on etcd 3.5") { move_leader("3.5"); }
TEST_CASE("move leader on etcd 3.6") { move_leader("3.6"); }
