// Membership surgery against real etcd 3.4, 3.5 and 3.6: the errors that
// guard it, then remove, re-add as a learner, start it, promote it.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "etcd_e2e.h"

using namespace etcd_e2e;

namespace {

// Turns a stopped, removed member of the testenv cluster into a fresh joiner:
// empty data dir, --initial-cluster-state=existing with the current membership
// (a joiner must list exactly the current membership), then starts it.
void rejoin(e2e::EtcdCluster& c, const std::string& name, const std::vector<etcd::Member>& members,
            const std::string& new_peer_url) {
  std::string cmd_file = c.dir() + "/members/" + name + ".cmd";
  std::ifstream in(cmd_file);
  REQUIRE(in);
  std::string initial;
  for (const auto& m : members) {
    std::string n = m.name.empty() ? name : m.name;
    std::string url = m.peer_urls.empty() ? new_peer_url : m.peer_urls[0];
    initial += (initial.empty() ? "" : ",") + n + "=" + url;
  }
  std::vector<std::string> lines;
  std::string line, data_dir;
  while (std::getline(in, line)) {
    if (line.rfind("--initial-cluster-state=", 0) == 0) line = "--initial-cluster-state=existing";
    if (line.rfind("--initial-cluster=", 0) == 0) line = "--initial-cluster=" + initial;
    if (line.rfind("--data-dir=", 0) == 0) data_dir = line.substr(11);
    lines.push_back(line);
  }
  REQUIRE(!data_dir.empty());
  REQUIRE(e2e::run({"rm", "-rf", data_dir}).rc == 0);
  std::ofstream out(cmd_file, std::ios::trunc);
  for (const auto& l : lines) out << l << "\n";
  out.close();
  c.act("start", name);
}

void membership_surgery(const std::string& version) {
  CAPTURE(version);
  e2e::EtcdCluster c(options(version));
  auto cl = client_for(c);

  auto list = must(cl->member_list(true), "member list");
  REQUIRE(list.members.size() == 3);
  for (const auto& name : c.member_names()) {
    const auto* m = find_member(list.members, name);
    REQUIRE_MESSAGE(m != nullptr, name);
    CHECK(m->id == etcdctl_member_id(c, name));
    CHECK_FALSE(m->is_learner);
    CHECK(m->client_urls.size() == 1);
  }
  const etcd::Member m0 = *find_member(list.members, "member-0");
  const etcd::Member m1 = *find_member(list.members, "member-1");
  const etcd::Member m2 = *find_member(list.members, "member-2");

  // Promoting a voter is refused with its own reason.
  auto pv = cl->member_promote(m0.id);
  REQUIRE_FALSE(pv.ok());
  CHECK(pv.error().reason == "MemberNotLearner");

  // A peer URL already registered. etcd refuses every add as "unhealthy
  // cluster" until all voters have been connected for 5 s: right after the
  // start, that is what it answers first.
  auto dup = cl->member_add(m1.peer_urls, true);
  auto t_add = Clock::now();
  while (!dup.ok() && dup.error().reason == "UnhealthyCluster" && seconds_since(t_add) < 20) {
    usleep(500 * 1000);
    dup = cl->member_add(m1.peer_urls, true);
  }
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().reason == "PeerURLExists");

  // Quorum: with member-2 stopped, removing started member-1 would leave one
  // started member of two. etcd counts a member as started for 5 s after its
  // last message, hence the wait.
  c.act("stop", "member-2");
  sleep(7);
  auto q = cl->member_remove(m1.id);
  REQUIRE_FALSE(q.ok());
  CHECK(q.error().reason == "UnhealthyCluster");
  CHECK(q.error().kind == base::ErrorKind::Refused);
  CHECK(q.error().object == "member " + etcd::format_member_id(m1.id));

  // Removing the stopped member is fine; again, it is not found.
  auto rm = must(cl->member_remove(m2.id), "remove member-2");
  CHECK(rm.size() == 2);
  auto again = cl->member_remove(m2.id);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().reason == "MemberNotFound");
  CHECK(again.error().kind == base::ErrorKind::NotFound);

  // Re-add it as a learner.
  auto added = must(cl->member_add(m2.peer_urls, true), "add learner");
  CHECK(added.member.is_learner);
  CHECK(added.member.name.empty());
  CHECK(added.member.peer_urls == m2.peer_urls);
  CHECK(added.members.size() == 3);
  CHECK(added.member.id != m2.id);

  // The learner limit (1 by default).
  auto second = cl->member_add({"http://127.0.0.1:1"}, true);
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().reason == "TooManyLearners");

  // Not started: not in sync, so promoting is refused with a clear error.
  auto early = cl->member_promote(added.member.id);
  REQUIRE_FALSE(early.ok());
  CHECK(early.error().reason == "LearnerNotReady");
  CHECK(early.error().message.find("in sync with leader") != std::string::npos);
  CHECK_FALSE(early.error().hint.empty());

  rejoin(c, "member-2", added.members, m2.peer_urls[0]);

  // Once it has caught up, promotion succeeds.
  auto t0 = Clock::now();
  base::Result<std::vector<etcd::Member>> promoted = cl->member_promote(added.member.id);
  while (!promoted.ok() && promoted.error().reason == "LearnerNotReady" && seconds_since(t0) < 60) {
    usleep(500 * 1000);
    promoted = cl->member_promote(added.member.id);
  }
  REQUIRE_MESSAGE(promoted.ok(), promoted.error().one_line());
  auto after = must(cl->member_list(true), "member list after promote");
  REQUIRE(after.members.size() == 3);
  const auto* now2 = find_member(after.members, "member-2");
  REQUIRE(now2 != nullptr);
  CHECK_FALSE(now2->is_learner);
  CHECK(now2->id == added.member.id);
  CHECK(now2->id == etcdctl_member_id(c, "member-2"));

  // The new member answers Status itself, as a voter.
  auto st = must(cl->status(now2->client_urls.at(0)), "status of the new member");
  CHECK(st.header.member_id == added.member.id);
  CHECK_FALSE(st.is_learner);
}

}  // namespace

TEST_CASE("membership surgery on etcd 3.4") { membership_surgery("3.4"); }
TEST_CASE("membership surgery on etcd 3.5") { membership_surgery("3.5"); }
TEST_CASE("membership surgery on etcd 3.6") { membership_surgery("3.6"); }
