// defrag --via-cr (docs/operator-contract.md#etcddefrag): the EtcdDefrag the
// tool creates is accepted by the real CRD, and the tool waits for and
// reports the status written to it.
//
// The operator in this repository's test environment (the upstream snapshot
// in ../shared/upstream) ships the EtcdDefrag kind without a controller:
// nothing acts on the object. So THIS TEST WRITES THE STATUS ITSELF, as the
// operator's controller would (finish_cr), and proves only the tool's side:
// the object, the wait and the report; it proves nothing about an operator
// defragmenting anything.
#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

const std::string kDefrags = "etcddefrags.etcd-operator.cozystack.io";

}  // namespace

TEST_CASE("defrag --via-cr creates an EtcdDefrag, waits, and prints its members as defrag does") {
  FixtureOptions o;
  o.members = 3;
  o.version = "3.6";
  NativeCluster c(o);
  const auto ms = c.members();
  char tmpl[] = "/tmp/e2e-admin-defrag.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  auto args = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> a{NativeCluster::binary(), "defrag", "--via-cr", "--name", name, "-c", c.name(),
                               "-n", c.ns(), "--connect", "direct", "--operator", c.ns() + "/etcd-operator"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };

  // Complete: the rows are status.members, in defrag's own columns.
  Background ok(args("ok", {"--quota-usage-above", "80%", "--min-reclaim", "16Mi", "-o", "json"}), dir);
  finish_cr(c, kDefrags, "ok",
            R"({"status":{"phase":"Complete","defragmented":1,"startedAt":"2026-01-01T00:00:00Z","completedAt":"2026-01-01T00:00:05Z","members":[)"
            R"({"name":")" + ms[1] + R"(","role":"follower","outcome":"Defragmented","dbSizeBefore":3000000,"dbSizeAfter":1000000,"reclaimedBytes":2000000},)"
            R"({"name":")" + ms[0] + R"(","role":"leader","outcome":"Skipped","reason":"BelowThreshold"}]}})");
  auto r = ok.collect();
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.rc == 0);
  auto rows = json::parse(r.out);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["name"] == ms[1]);
  CHECK(rows[0]["outcome"] == "Defragmented");
  CHECK(rows[0]["dbSizeBefore"] == 3000000);
  CHECK(rows[0]["reclaimedBytes"] == 2000000);
  CHECK(rows[1]["reason"] == "BelowThreshold");
  CHECK(r.err.find("EtcdDefrag phase: Complete") != std::string::npos);
  // The object as the real CRD stored it: the rule went in unchanged.
  auto cr = json::parse(c.kubectl({"get", kDefrags, "ok", "-o", "json"}));
  CHECK(cr["spec"]["clusterRef"]["name"] == c.name());
  CHECK(cr["spec"]["rule"] == json::parse(R"({"quotaUsageAbove": "80%", "minReclaim": "16Mi"})"));

  // A member the operator failed on: the aggregate exit code of defrag.
  Background part(args("part", {"--all"}), dir);
  finish_cr(c, kDefrags, "part",
            R"({"status":{"phase":"Complete","members":[{"name":")" + ms[0] +
                R"(","role":"follower","outcome":"Defragmented"},{"name":")" + ms[1] +
                R"(","role":"leader","outcome":"Failed","reason":"RPCError"}]}})");
  auto p = part.collect();
  CHECK(p.rc == 5);
  CHECK(json::parse(c.kubectl({"get", kDefrags, "part", "-o", "json"}))["spec"]["rule"] ==
        json::parse(R"({"all": true})"));

  // Failed: exit 1 with the condition's reason and message.
  Background bad(args("bad", {}), dir);
  finish_cr(c, kDefrags, "bad",
            R"({"status":{"phase":"Failed","conditions":[{"type":"Ready","status":"False","reason":"ClusterNotHealthy","message":"a member is down","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})");
  auto f = bad.collect();
  CHECK(f.rc == 1);
  CHECK(f.err.find("ClusterNotHealthy: a member is down") != std::string::npos);

  // Nobody writes a status (as with this test environment's operator): by
  // the pickup time (--timeout here, shorter than the minute) the run says
  // so, with progress on the way, names what should have acted, deletes the
  // object and is refused (docs/rules.md#one-shot-request-pickup).
  const auto started = Clock::now();
  auto slow = e2e::run(args("slow", {"--timeout", "12s"}));
  INFO("stderr: " << slow.err);
  CHECK(slow.rc == 3);
  CHECK(slow.err.find("note: EtcdDefrag " + c.ns() + "/slow created; waiting for the EtcdDefrag controller of the "
                      "etcd-operator.cozystack.io/v1alpha2 operator to pick it up") != std::string::npos);
  CHECK(slow.err.find("note: EtcdDefrag " + c.ns() + "/slow: no status after 10s") != std::string::npos);
  CHECK(slow.err.find("nothing picked it up within 12s (no status written): the EtcdDefrag controller of the "
                      "etcd-operator.cozystack.io/v1alpha2 operator is missing or not running; the EtcdDefrag was "
                      "deleted; run `kubectl etcd defrag` without --via-cr") != std::string::npos);
  CHECK(seconds_since(started) < 30);
  CHECK(e2e::kubectl_result({"get", kDefrags, "slow", "-n", c.ns()}).rc != 0);

  // Picked up (a status is written) but not finished in time: 4, the phase
  // named, and the object stays for the operator.
  Background late(args("late", {"--timeout", "4s"}), dir);
  finish_cr(c, kDefrags, "late", R"({"status":{"phase":"Running"}})");
  auto l = late.collect();
  INFO("stderr: " << l.err);
  CHECK(l.rc == 4);
  CHECK(l.err.find("EtcdDefrag phase: Running") != std::string::npos);
  CHECK(l.err.find("timed out after 4s waiting (phase Running)") != std::string::npos);
  CHECK(e2e::kubectl_result({"get", kDefrags, "late", "-n", c.ns()}).rc == 0);

  // What the schema would refuse is refused before anything is created.
  CHECK(e2e::run(args("frac", {"--quota-usage-above", "80.5%"})).rc == 128);
  CHECK(e2e::run(args("onlyone", {"--member", ms[0]})).rc == 128);
  CHECK(e2e::kubectl_result({"get", kDefrags, "frac", "-n", c.ns()}).rc != 0);

  // Without a running operator nothing would act on it: refused, nothing created.
  c.kubectl({"delete", "lease", "aa20b3a9.etcd-operator.cozystack.io"});
  auto refused = e2e::run(args("refused", {}));
  CHECK(refused.rc == 3);
  CHECK(refused.err.find("the operator does not run") != std::string::npos);
  CHECK(e2e::kubectl_result({"get", kDefrags, "refused", "-n", c.ns()}).rc != 0);
  e2e::run({"rm", "-rf", dir});
}
