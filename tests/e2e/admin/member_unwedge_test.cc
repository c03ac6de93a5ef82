// member unwedge (docs/break-glass-design.md#unwedge) on fixtures bent to show each symptom: a
// Terminating EtcdMember etcd forgot, an orphan learner, DeadlineExceeded
// with spec equal to observed, and a progressDeadline still ahead.
#include <ctime>

#include "member_e2e.h"

using namespace member_e2e;

namespace {

e2e::CommandResult unwedge(const NativeCluster& c, std::vector<std::string> args) {
  std::vector<std::string> cmd{"member", "unwedge"};
  args.insert(args.end(), {"--timeout", "90s"});
  return c.tool(cmd, args);
}

std::vector<std::string> planned(const e2e::CommandResult& r) {
  INFO("unwedge: " << r.out << r.err);
  std::vector<std::string> out;
  const json doc = json::parse(r.out);
  for (const auto& f : doc["fixes"]) {
    out.push_back(f["fix"].get<std::string>() + (f.contains("outcome") ? "=" + f["outcome"].get<std::string>() : ""));
  }
  return out;
}

std::string utc(std::time_t t) {
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

TEST_CASE("member unwedge: a Terminating ghost, an orphan learner, the progress deadline") {
  NativeCluster c(FixtureOptions{});
  const auto ms = c.members();
  REQUIRE(c.tool({"move-leader", ms[0]}).rc == 0);
  CHECK(unwedge(c, {}).out == "nothing to unwedge\n");

  // (a) etcd forgot ms[2] (a hand removal); its EtcdMember is deleted and
  // held by the finalizer with the old memberID: the operator's finalizer
  // would retry "member not found" forever. (b) A learner nobody owns.
  c.reconfigure({"member", "remove", c.id_of(ms[2])});
  c.kubectl({"delete", "etcdmember", ms[2], "--wait=false"});
  c.reconfigure({"member", "add", "orphan", "--learner", "--peer-urls",
                 "https://orphan." + c.name() + "." + c.ns() + ".svc:2380"});
  auto dry = unwedge(c, {"--dry-run", "-o", "json"});
  REQUIRE(dry.rc == 0);
  CHECK(planned(dry) == std::vector<std::string>{"clear-id", "remove-learner"});
  CHECK(json::parse(dry.out)["operatorActive"] == true);
  CHECK(etcd_members(c).size() == 3);  // the dry run changed nothing
  auto noyes = unwedge(c, {});
  CHECK(noyes.rc == 3);  // no terminal, no --yes

  auto run = unwedge(c, {"--yes", "-o", "json"});
  REQUIRE(run.rc == 0);
  CHECK(planned(run) == std::vector<std::string>{"clear-id=done", "remove-learner=done"});
  CHECK(c.kubectl({"get", "etcdmember", ms[2], "-o", "jsonpath={.status.memberID}"}).empty());
  CHECK(etcd_members(c).size() == 2);
  CHECK_FALSE(has(finding_codes(c), "ORPHAN_LEARNER"));
  // The operator is active: its finalizer releases the member now; nothing is left for us.
  CHECK(unwedge(c, {}).out == "nothing to unwedge\n");

  // With the operator down (its Lease expired) the finalizer is ours to drop,
  // now that a linearizable MemberList shows the member absent.
  c.kubectl({"patch", "lease", "aa20b3a9.etcd-operator.cozystack.io", "--type=merge", "-p",
             R"({"spec":{"leaseDurationSeconds":1,"renewTime":"2026-01-01T00:00:00.000000Z"}})"});
  auto rel = unwedge(c, {"--yes", "-o", "json"});
  REQUIRE(rel.rc == 0);
  CHECK(planned(rel) == std::vector<std::string>{"release=done"});
  CHECK(c.kubectl({"get", "etcdmember", "-o", "name"}).find(ms[2]) == std::string::npos);
  check_i1_i3(c, "after unwedging");
  CHECK(unwedge(c, {}).out == "nothing to unwedge\n");  // idempotent

  // (c) The terminal DeadlineExceeded with spec equal to observed: reported,
  // not fixed (the spec is the user's), exit 3.
  const std::string now = utc(std::time(nullptr));
  c.kubectl({"patch", "etcdcluster", c.name(), "--subresource=status", "--type=merge", "-p",
             R"({"status":{"progressDeadline":")" + utc(std::time(nullptr) - 60) +
                 R"(","conditions":[{"type":"Available","status":"False","reason":"DeadlineExceeded","message":"deadline passed","lastTransitionTime":")" +
                 now + R"("},{"type":"Progressing","status":"False","reason":"DeadlineExceeded","message":"deadline passed","lastTransitionTime":")" +
                 now + R"("}]}})"});
  auto dl = unwedge(c, {"-o", "json"});
  INFO("deadline: " << dl.out << dl.err);
  CHECK(dl.rc == 3);
  const json dd = json::parse(dl.out);
  REQUIRE(dd["advice"].size() == 1);
  CHECK(dd["advice"][0]["symptom"] == "deadline-exceeded");
  // The dry-run exits as the run would, with its line (docs/rules.md#dry-run-checks-what-the-run-checks).
  auto dl_dry = unwedge(c, {"--dry-run", "-o", "json"});
  CHECK(dl_dry.rc == 3);
  CHECK(dl_dry.err.find("error: nothing here fixes what is left") != std::string::npos);
  // --expire-deadline has nothing to move: the deadline is already behind.
  CHECK(planned(unwedge(c, {"--expire-deadline", "--dry-run", "-o", "json"})).empty());

  // A reconcile wedged before its deadline: the escalation moves it into the past.
  c.kubectl({"patch", "etcdcluster", c.name(), "--subresource=status", "--type=merge", "-p",
             R"({"status":{"progressDeadline":")" + utc(std::time(nullptr) + 3600) + R"("}})"});
  auto ex = unwedge(c, {"--expire-deadline", "--yes", "-o", "json"});
  INFO("expire: " << ex.out << ex.err);
  CHECK(ex.rc == 5);  // fixed that; the DeadlineExceeded advice is still there
  CHECK(planned(ex) == std::vector<std::string>{"expire-deadline=done"});
  const std::string after = c.kubectl({"get", "etcdcluster", c.name(), "-o", "jsonpath={.status.progressDeadline}"});
  CHECK(after <= utc(std::time(nullptr)));
  CHECK(planned(unwedge(c, {"--expire-deadline", "--dry-run", "-o", "json"})).empty());  // idempotent
}
