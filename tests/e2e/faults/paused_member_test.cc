// A member SIGSTOPped under health, status and member list --probe
// (docs/server-faults.md): its kernel still accepts the TCP connection, but
// nothing answers, so only the programs' own timeouts end the wait. Each
// command must return within the dial and command timeouts (plus process
// start and the Kubernetes reads), name the silent member, and exit with the
// code of docs/exit-codes.md. The paused member is the leader: the others
// elect a new one meanwhile, the hardest case for "the rest still answers".
#include <doctest/doctest.h>

#include "../admin/admin_e2e.h"

using namespace admin_e2e;

namespace {

const json& row_of(const json& doc, const std::string& name) {
  for (const auto& m : doc["members"]) {
    if (m["name"] == name) return m;
  }
  FAIL("no row for " << name << " in " << doc.dump());
  static json none;
  return none;
}

// The timeouts every run below gets; the bound is both of them (a dial that
// stalls, then a call that stalls), plus 3 s for the process start and the
// Kubernetes reads on a loaded machine. Without the timeouts the commands
// would wait for the paused member forever.
constexpr double kDial = 2.0, kCommand = 2.0;
constexpr double kBound = kDial + kCommand + 3.0;
const std::vector<std::string> kTimeouts = {"--dial-timeout", "2s", "--command-timeout", "2s"};

struct Timed {
  e2e::CommandResult r;
  double took = 0;
};

Timed run_paused(NativeCluster& c, const std::string& member, std::vector<std::string> cmd,
                 std::vector<std::string> args) {
  args.insert(args.end(), kTimeouts.begin(), kTimeouts.end());
  c.act("pause", member);
  auto t0 = Clock::now();
  Timed t{c.tool(cmd, args), 0};
  t.took = seconds_since(t0);
  c.act("resume", member);
  MESSAGE(cmd[0] << (cmd.size() > 1 ? " " + cmd[1] : "") << " with " << member << " paused: rc " << t.r.rc
                 << " in " << t.took << " s");
  INFO("stdout: " << t.r.out << "\nstderr: " << t.r.err);
  CHECK(t.took < kBound);
  return t;
}

// Resumed, the member is back and every member healthy again; then the
// leader (a new one, after the pause) is the next to pause.
void wait_healthy(const NativeCluster& c) {
  for (int i = 0; i < 50; ++i) {
    if (c.tool({"health"}).rc == 0) return;
    usleep(200000);
  }
  FAIL_CHECK("the cluster did not become healthy after the resume");
}

}  // namespace

// One fixture for the three commands (a fixture costs more than the runs).
TEST_CASE("the leader SIGSTOPped: health, status and member list --probe return in time and name it") {
  FixtureOptions o;
  o.members = 3;
  NativeCluster c(o);

  {
    INFO("health: exit 1, the paused member unhealthy with an error");
    const std::string paused = leader_of(c);
    CAPTURE(paused);
    auto t = run_paused(c, paused, {"health"}, {"-o", "json"});
    CHECK(t.r.rc == 1);
    auto doc = parse(t.r);
    const auto& row = row_of(doc, paused);
    CHECK(row["healthy"] == false);
    CHECK(row["error"] != "");
    // Its member ID comes from its EtcdMember, as for a stopped member.
    CHECK(row["id"] == c.id_of(paused));
  }
  wait_healthy(c);

  {
    INFO("status: exit 5, the paused member's row carries the error, the others answer");
    const std::string paused = leader_of(c);
    CAPTURE(paused);
    auto t = run_paused(c, paused, {"status"}, {"-o", "json"});
    CHECK(t.r.rc == 5);
    auto doc = parse(t.r);
    const auto& row = row_of(doc, paused);
    CHECK(row["role"] == "-");
    CHECK(row["id"] == c.id_of(paused));
    REQUIRE(row["errors"].size() == 1);
    CHECK(row["errors"][0] != "");
    int answered = 0;
    for (const auto& m : doc["members"]) {
      if (m["name"] != paused && m["role"] != "-") ++answered;
    }
    CHECK(answered == 2);
  }
  wait_healthy(c);

  {
    INFO("member list --probe: exit 5, only the paused member unreachable");
    const std::string paused = leader_of(c);
    CAPTURE(paused);
    auto t = run_paused(c, paused, {"member", "list"}, {"-o", "json", "--probe"});
    CHECK(t.r.rc == 5);
    auto doc = parse(t.r);
    REQUIRE(doc["members"].size() == 3);
    for (const auto& m : doc["members"]) CHECK(m["reachable"] == (m["name"] != paused));
  }
  wait_healthy(c);
}
