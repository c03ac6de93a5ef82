// The etcd leader SIGKILLed while `snapshot save --overwrite` streams from it
// (docs/server-faults.md): the good snapshot already at the path stays as it
// was (the stream goes to PATH.part, renamed only once complete and
// verified), no .part is left, the command exits non-zero naming the
// member, and a re-run once the cluster has a new leader writes a valid
// snapshot over the old one.
#include "faults_e2e.h"

using namespace faults_e2e;

TEST_CASE("the leader SIGKILLed mid-snapshot: the good file stays, exit non-zero naming the member, a re-run works") {
  admin_e2e::FixtureOptions o;
  o.version = "3.6";
  NativeCluster c(o);
  {
    auto cl = c.direct_client();
    fill(*cl, 40);
  }
  const std::string dir = tmpdir("e2e-fault-snap");
  const std::string path = dir + "/snap.db";
  auto good = c.tool({"snapshot", "save", path}, {"-q"});
  REQUIRE_MESSAGE(good.rc == 0, good.err);
  const std::string good_sha = sha256_of(path);

  const std::string leader = leader_of(c);
  CAPTURE(leader);
  const pid_t leader_pid = member_pid(c, leader);
  Background save({NativeCluster::binary(), "snapshot", "save", path, "--overwrite", "--member", leader, "-c", c.name(),
                   "-n", c.ns(), "--connect", "direct", "--operator", c.ns() + "/etcd-operator"},
                  dir);
  // Killed as soon as bytes arrived: the stream breaks in the middle.
  bool streaming = wait_for(
      [&] {
        struct stat st {};
        return ::stat((path + ".part").c_str(), &st) == 0 && st.st_size > 0;
      },
      std::chrono::seconds(30), std::chrono::milliseconds(1));
  REQUIRE_MESSAGE(streaming, "no bytes arrived in " << path << ".part");
  REQUIRE(::kill(leader_pid, SIGKILL) == 0);
  auto killed_at = Clock::now();
  auto r = save.collect(std::chrono::seconds(60));
  double after_kill = seconds_since(killed_at);
  MESSAGE("snapshot save ended " << after_kill << " s after the kill, rc " << r.rc << ": " << r.err);
  // A stream that broke (1), not a member never reached (2) nor a stall (4).
  CHECK(r.rc == 1);
  CHECK(after_kill < 20);  // a broken stream ends at once, not after a timeout
  CHECK(r.err.find("error: member \"" + leader + "\"") != std::string::npos);
  CHECK(r.err.find("the snapshot stream broke after") != std::string::npos);
  CHECK(r.err.find(path + "\" is as it was") != std::string::npos);
  CHECK(sha256_of(path) == good_sha);
  CHECK_FALSE(exists(path + ".part"));

  // The cluster elects another leader; the killed member comes back.
  c.act("start", leader);
  auto again = c.tool({"snapshot", "save", path}, {"--overwrite", "-o", "json"});
  CHECK_MESSAGE(again.rc == 0, again.err);
  auto v = e2e::run({NativeCluster::binary(), "snapshot", "status", "--file", path, "-o", "json"});
  CHECK_MESSAGE(v.rc == 0, v.out << v.err);
  CHECK(json::parse(v.out)["valid"] == true);
  CHECK_FALSE(exists(path + ".part"));
  e2e::run({"rm", "-rf", dir});
}
