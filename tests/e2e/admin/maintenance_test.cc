// NOSPACE raised by a small quota then disarmed, compact, defrag (order
// followers-then-leader from the members' own logs), move-leader,
// forfeit-leadership and the refused add-member.
#include <fstream>
#include <map>
#include <sstream>

#include "admin_e2e.h"
#include "etcd/client.h"

using namespace admin_e2e;

namespace {

// The wall-clock time (as logged) of a member's first log line containing `what`.
std::string first_log_time(const NativeCluster& c, const std::string& member, const std::string& what) {
  std::ifstream f(c.etcd_dir() + "/logs/" + member + ".log");
  for (std::string line; std::getline(f, line);) {
    if (line.find(what) == std::string::npos) continue;
    auto j = json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.contains("ts")) return j["ts"];
  }
  return {};
}

}  // namespace

TEST_CASE("NOSPACE raised by a small quota, listed, then disarmed; health says unhealthy meanwhile") {
  for (const auto& v : versions()) {
    CAPTURE(v);
    FixtureOptions o;
    o.version = v;
    o.tls = v != "3.4";
    o.extra = {"--quota-backend-bytes", "1048576"};
    NativeCluster c(o);
    auto cl = c.direct_client();
    std::string value(64 * 1024, 'x');
    base::Result<etcd::Header> put = etcd::Header{};
    for (int i = 0; i < 200 && put.ok(); ++i) put = cl->put("/fill/" + std::to_string(i), value);
    REQUIRE_MESSAGE(!put.ok(), "the quota was never reached");

    auto list = c.tool({"alarm", "list"}, {"-o", "json"});
    REQUIRE_MESSAGE(list.rc == 0, list.err);
    auto alarms = json::parse(list.out);
    REQUIRE_FALSE(alarms.empty());
    for (const auto& a : alarms) {
      CHECK(a["alarm"] == "NOSPACE");
      CHECK(a["member"] != "");
    }
    auto table = c.tool({"alarm", "list"});
    CHECK(table.out.find("NOSPACE") != std::string::npos);
    auto h = c.tool({"health"});
    CHECK(h.rc == 1);
    CHECK(h.out.find("NOSPACE") != std::string::npos);
    MESSAGE("health under NOSPACE: " << h.out);

    // Make room (delete, compact, defragment), then disarm.
    REQUIRE(cl->delete_range("/fill/", "/fill0").ok());
    auto rev = c.tool({"compact"});
    REQUIRE_MESSAGE(rev.rc == 0, rev.err);
    CHECK(rev.out.rfind("compacted revision ", 0) == 0);
    auto d = c.tool({"defrag"}, {"--all", "-o", "json"});
    REQUIRE_MESSAGE(d.rc == 0, d.out << d.err);
    auto dis = c.tool({"alarm", "disarm"}, {"-o", "json"});
    REQUIRE_MESSAGE(dis.rc == 0, dis.out << dis.err);
    auto drows = json::parse(dis.out);
    CHECK(drows.size() == alarms.size());
    for (const auto& r : drows) CHECK(r["outcome"] == "disarmed");
    CHECK(c.ctl({"alarm", "list"}).find("NOSPACE") == std::string::npos);
    CHECK(c.tool({"alarm", "list"}).out == "no alarms\n");
    CHECK(cl->put("/after", "ok").ok());
    auto again = c.tool({"alarm", "disarm"}, {"-o", "json"});
    CHECK(again.rc == 0);
    CHECK(json::parse(again.out) == json::array());
  }
}

TEST_CASE("compact: to the current revision, --keep, and refused history") {
  FixtureOptions o;
  o.version = "3.5";
  NativeCluster c(o);
  for (int i = 0; i < 10; ++i) c.ctl({"put", "/k", std::to_string(i)});
  auto cur = json::parse(c.ctl({"get", "/k", "-w", "json"}))["header"]["revision"].get<std::int64_t>();
  auto keep = c.tool({"compact"}, {"--keep", "5", "-o", "json"});
  REQUIRE_MESSAGE(keep.rc == 0, keep.err);
  CHECK(json::parse(keep.out)["revision"] == cur - 5);
  // etcd now refuses the compacted revisions.
  auto old = c.ctl_result({"get", "/k", "--rev", std::to_string(cur - 6)});
  CHECK(old.rc != 0);
  CHECK(old.err.find("compacted") != std::string::npos);
  auto future = c.tool({"compact"}, {"--revision", std::to_string(cur + 100)});
  CHECK(future.rc == 128);
}

TEST_CASE("defrag cluster-wide: followers first, the leader last, as the members' logs show") {
  for (const std::string v : {"3.5", "3.6"}) {
    CAPTURE(v);
    FixtureOptions o;
    o.version = v;
    NativeCluster c(o);
    auto st = json::parse(c.tool({"status"}, {"-o", "json"}).out);
    std::string leader;
    for (const auto& m : st["members"]) {
      if (m["role"] == "leader") leader = m["name"];
    }
    REQUIRE_FALSE(leader.empty());

    // The default rule skips small dbs.
    auto skip = c.tool({"defrag"}, {"-o", "json"});
    REQUIRE_MESSAGE(skip.rc == 0, skip.err);
    for (const auto& r : json::parse(skip.out)) {
      CHECK(r["outcome"] == "Skipped");
      CHECK(r["reason"] == "BelowThreshold");
    }
    auto dry = c.tool({"defrag"}, {"--all", "--dry-run", "-o", "json"});
    auto dry_rows = json::parse(dry.out);
    REQUIRE(dry_rows.size() == 3);
    CHECK(dry_rows[2]["name"] == leader);
    for (const auto& r : dry_rows) CHECK(r["outcome"] == "Pending");

    auto r = c.tool({"defrag"}, {"--all", "-o", "json"});
    REQUIRE_MESSAGE(r.rc == 0, r.out << r.err);
    auto rows = json::parse(r.out);
    REQUIRE(rows.size() == 3);
    CHECK(rows[2]["name"] == leader);
    CHECK(rows[2]["role"] == "leader");
    for (const auto& row : rows) {
      CHECK(row["outcome"] == "Defragmented");
      CHECK(row["dbSizeBefore"].is_number());
      CHECK(row["dbSizeAfter"].is_number());
    }
    // From etcd itself: each member logged its defragmentation; the leader's came last.
    std::map<std::string, std::string> when;
    for (const auto& m : c.members()) {
      when[m] = first_log_time(c, m, "defragment");
      CAPTURE(m);
      REQUIRE_FALSE(when[m].empty());
    }
    for (const auto& m : c.members()) {
      if (m != leader) CHECK(when[m] < when[leader]);
    }
    CHECK(when[rows[0]["name"]] < when[rows[1]["name"]]);

    // One member by -p: unconditionally, that member only.
    auto one = c.tool({"defrag"}, {"-p", c.members()[0], "-o", "json"});
    REQUIRE_MESSAGE(one.rc == 0, one.err);
    auto one_rows = json::parse(one.out);
    REQUIRE(one_rows.size() == 1);
    CHECK(one_rows[0]["name"] == c.members()[0]);
    CHECK(one_rows[0]["outcome"] == "Defragmented");
  }
}

TEST_CASE("defrag defers the rest when a member is down; learners are skipped") {
  FixtureOptions o;
  o.version = "3.6";
  NativeCluster c(o);
  c.act("stop", c.members()[2]);
  // The dry-run reads the health gate too: the rows the run will give
  // (docs/rules.md#dry-run-checks-what-the-run-checks).
  auto dry = c.tool({"defrag"}, {"--all", "--dry-run", "-o", "json", "--command-timeout", "2s"});
  auto r = c.tool({"defrag"}, {"--all", "-o", "json", "--command-timeout", "2s"});
  CHECK(r.rc == 1);  // one unreachable (failed), the others deferred (blocked)
  CHECK(dry.rc == r.rc);
  auto rows = json::parse(r.out);
  auto dry_rows = json::parse(dry.out);
  REQUIRE(dry_rows.size() == rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(dry_rows[i]["name"] == rows[i]["name"]);
    CHECK(dry_rows[i]["outcome"] == rows[i]["outcome"]);
    CHECK(dry_rows[i]["reason"] == rows[i]["reason"]);
  }
  int deferred = 0;
  for (const auto& row : rows) {
    if (row["name"] == c.members()[2]) {
      CHECK(row["outcome"] == "Failed");
    } else {
      CHECK(row["outcome"] == "Skipped");
      CHECK(row["reason"] == "ClusterNotHealthy");
      ++deferred;
    }
  }
  CHECK(deferred == 2);
}

TEST_CASE("move-leader hands over to the best follower, or to the one named; forfeit-leadership; add-member refused") {
  FixtureOptions o;
  o.version = "3.6";
  o.auth = true;
  NativeCluster c(o);
  auto leader_of = [&] {
    const auto doc = json::parse(c.tool({"status"}, {"-o", "json"}).out);
    for (const auto& m : doc["members"]) {
      if (m["role"] == "leader") return m["name"].get<std::string>();
    }
    return std::string();
  };
  std::string before = leader_of();
  auto r = c.tool({"move-leader"}, {"-o", "json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  auto doc = json::parse(r.out);
  CHECK(doc["from"] == before);
  CHECK(doc["moved"] == true);
  CHECK(doc["to"] != before);
  CHECK(leader_of() == doc["to"]);

  std::string target = before;
  auto named = c.tool({"move-leader", target}, {"-o", "json"});
  REQUIRE_MESSAGE(named.rc == 0, named.err);
  CHECK(leader_of() == target);

  std::string follower;
  for (const auto& m : c.members()) {
    if (m != target) follower = m;
  }
  auto nf = e2e::run({NativeCluster::binary(), "forfeit-leadership", "-p", follower, "-n", c.ns(), "--connect",
                      "direct"});
  CHECK(nf.rc == 0);
  CHECK(nf.out == follower + " is not the leader\n");
  auto f = e2e::run({NativeCluster::binary(), "forfeit-leadership", "-p", target, "-n", c.ns(), "--connect", "direct"});
  CHECK_MESSAGE(f.rc == 0, f.err);
  CHECK(leader_of() != target);

  auto add = e2e::run({NativeCluster::binary(), "add-member", "https://x:2380"});
  CHECK(add.rc == 3);
  CHECK(add.err.find("member add") != std::string::npos);
}
