// health: every member healthy; a stopped and a paused (SIGSTOP) member each
// give a per-member error and exit 1 within 1.5x one budget (docs/rules.md#health-budget) over 5
// members; nothing reachable exits 2.
#include <csignal>

#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

const json& row_of(const json& doc, const std::string& name) {
  for (const auto& m : doc["members"]) {
    if (m["name"] == name) return m;
  }
  FAIL("no row " << name);
  static json none;
  return none;
}

}  // namespace

TEST_CASE("health of a healthy cluster on 3.4, 3.5 and 3.6") {
  for (const auto& v : versions()) {
    CAPTURE(v);
    FixtureOptions o;
    o.version = v;
    NativeCluster c(o);
    auto r = c.tool({"health"}, {"-o", "json"});
    REQUIRE_MESSAGE(r.rc == 0, r.out << r.err);
    auto doc = json::parse(r.out);
    REQUIRE(doc["members"].size() == 3);
    int leaders = 0;
    for (const auto& m : doc["members"]) {
      CHECK(m["healthy"] == true);
      CHECK(m["error"] == "");
      CHECK(m["id"] == c.id_of(m["name"]));
      if (m["role"] == "leader") ++leaders;
    }
    CHECK(leaders == 1);
    CHECK(doc["findings"] == json::array());
    auto table = c.tool({"health"});
    CHECK(table.out.rfind("NAME  ", 0) == 0);
    CHECK(table.out.find("FINDINGS") == std::string::npos);
  }
}

TEST_CASE("health over 5 members with one stopped and one paused: per-member errors, exit 1, one budget") {
  FixtureOptions o;
  o.members = 5;
  NativeCluster c(o);
  // Followers only: with its leader gone a cluster really is unhealthy
  // until it elects another, which is not what this test measures.
  std::vector<std::string> ms;
  std::string leader;
  const auto st = json::parse(c.tool({"status"}, {"-o", "json"}).out);
  for (const auto& m : st["members"]) {
    if (m["role"] == "leader") {
      leader = m["name"];
    } else {
      ms.push_back(m["name"]);
    }
  }
  REQUIRE(ms.size() == 4);
  ms.insert(ms.begin(), leader);
  c.act("stop", ms[4]);
  c.act("pause", ms[3]);
  const double budget = 2.0;
  auto t0 = Clock::now();
  auto r = c.tool({"health"}, {"-o", "json", "--command-timeout", "2s", "--dial-timeout", "2s"});
  double took = seconds_since(t0);
  c.act("resume", ms[3]);
  MESSAGE("health with a stopped and a paused member took " << took << " s");
  CHECK(r.rc == 1);
  CHECK(took < 1.5 * budget + 0.5);  // + process start and the Kubernetes reads
  auto doc = parse(r);
  REQUIRE(doc["members"].size() == 5);
  for (int i = 0; i < 3; ++i) {
    CAPTURE(ms[i]);
    CAPTURE(row_of(doc, ms[i])["error"]);
    CHECK(row_of(doc, ms[i])["healthy"] == true);
  }
  const auto& paused = row_of(doc, ms[3]);
  const auto& stopped = row_of(doc, ms[4]);
  CHECK(paused["healthy"] == false);
  CHECK(stopped["healthy"] == false);
  CHECK(paused["error"] != "");
  CHECK(stopped["error"] != "");
  CHECK(stopped["role"] == "-");
  MESSAGE("paused: " << paused["error"] << "\nstopped: " << stopped["error"]);
  // The member ID of an unreachable member comes from its EtcdMember.
  CHECK(stopped["id"] == c.id_of(ms[4]));
}

TEST_CASE("health: no member answers -> 2; an alarm makes the member unhealthy") {
  FixtureOptions o;
  o.members = 1;
  o.version = "3.5";
  NativeCluster c(o);
  auto m = c.members()[0];
  c.act("stop", m);
  auto r = c.tool({"health"}, {"--command-timeout", "1s"});
  CHECK(r.rc == 2);
  c.act("start", m);
  // Wait for it to serve again.
  for (int i = 0; i < 100 && c.tool({"health"}).rc != 0; ++i) usleep(100000);
  REQUIRE(c.tool({"health"}).rc == 0);
}
