// The etcd leader SIGKILLed during `kubectl-etcd member add --break-glass`
// (docs/server-faults.md), once the new member is registered as a learner:
// the two voters left elect a new leader while the tool waits for the
// learner and promotes it. The tool must end by itself (its --timeout
// bounds every wait), and either finish the add or exit non-zero naming a
// member; once the killed member is back, a re-run finishes the add without
// adding another, and no key a writer put (through a member that stays up)
// is lost.
#include "../admin/member_e2e.h"
#include "faults_e2e.h"

using namespace faults_e2e;

namespace {

bool has_learner(const NativeCluster& c) {
  auto r = c.ctl_result({"member", "list", "-w", "json"});
  if (r.rc != 0) return false;
  const json doc = json::parse(r.out);
  for (const auto& m : doc.value("members", json::array())) {
    if (m.value("isLearner", false)) return true;
  }
  return false;
}

long long count_keys(const NativeCluster& c, const std::string& prefix) {
  auto r = c.ctl_result({"get", prefix, "--prefix", "--keys-only", "-w", "json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  return json::parse(r.out).value("count", 0LL);
}

}  // namespace

TEST_CASE("the leader SIGKILLed during member add --break-glass: the run ends, a re-run finishes, nothing lost") {
  NativeCluster c(member_e2e::runner_fixture("3.6", 3));
  const auto ms = c.members();
  const std::string leader = leader_of(c);
  CAPTURE(leader);
  std::string steady;
  for (const auto& m : ms) {
    if (m != leader) steady = m;
  }
  const std::string cluster_id = c.kubectl({"get", "etcdcluster", c.name(), "-o", "jsonpath={.status.clusterID}"});
  member_e2e::Writer writer(c, member_e2e::endpoint_of(c, steady));
  const pid_t leader_pid = member_pid(c, leader);
  const std::string work = tmpdir("e2e-fault-add");

  Background add({NativeCluster::binary(), "member", "add", "-c", c.name(), "-n", c.ns(), "--connect", "direct",
                  "--operator", c.ns() + "/etcd-operator", "--timeout", "60s", "--break-glass",
                  "--skip-operator-check", "--yes"},
                 work);
  bool registered = wait_for([&] { return has_learner(c); }, std::chrono::seconds(90), std::chrono::milliseconds(20));
  REQUIRE_MESSAGE(registered, "no learner was added: " << slurp(work + "/stderr"));
  REQUIRE(::kill(leader_pid, SIGKILL) == 0);
  auto r = add.collect(std::chrono::seconds(120));
  MESSAGE("member add with its leader killed: rc " << r.rc << " after " << add.took() << " s\nstderr: " << r.err);
  if (r.rc != 0) {
    CHECK(r.err.find("error: ") != std::string::npos);
    CHECK(r.err.find("member \"") != std::string::npos);
  }

  c.act("start", leader);
  if (r.rc != 0) {
    auto again = member_e2e::member(c, {"add"});
    INFO("re-run: " << again.out << again.err);
    CHECK(again.rc == 0);
  }
  member_e2e::check_clean(c, "after the add");
  CHECK(member_e2e::voters(c) == 4);
  CHECK(member_e2e::etcd_members(c).size() == 4);
  CHECK(c.kubectl({"get", "etcdcluster", c.name(), "-o", "jsonpath={.status.clusterID}"}) == cluster_id);
  // Every member healthy, the killed one too once it is back (health still
  // exits 1 for the finding HAND_RENDERED_POD, which `member roll` clears).
  e2e::CommandResult health;
  bool healthy = wait_for(
      [&] {
        health = c.tool({"health"}, {"-o", "json"});
        if (health.out.empty()) return false;
        const json doc = json::parse(health.out);
        int ok = 0;
        for (const auto& m : doc["members"]) ok += m["healthy"] == true ? 1 : 0;
        return ok == 4;
      },
      std::chrono::seconds(30), std::chrono::milliseconds(500));
  CHECK_MESSAGE(healthy, "health: " << health.out << health.err);

  writer.finish();
  MESSAGE("writer: " << writer.puts() << " puts, " << writer.errors() << " failed\n" << writer.error_log());
  CHECK(writer.puts() > 0);  // etcdctl per put: few on a loaded machine
  // Every put that succeeded is there (a failed one may have been applied too).
  CHECK(count_keys(c, "writer/") >= writer.puts() - writer.errors());
  e2e::run({"rm", "-rf", work});
}
