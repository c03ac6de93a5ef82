// hashkv and check --consistency (docs/data-consistency.md) against real
// etcd: every member agrees on a healthy cluster, across a compaction too;
// a member whose data was made to diverge (its data dir restored from an
// older snapshot while the others went on) is named, with exit 8.
#include <cstdio>
#include <fstream>

#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

const json* hash_row(const json& doc, const std::string& member) {
  for (const auto& m : doc["members"]) {
    if (m["name"] == member) return &m;
  }
  return nullptr;
}

void put_keys(const NativeCluster& c, const std::string& prefix, int n) {
  for (int i = 0; i < n; ++i) c.ctl({"put", prefix + std::to_string(i), "value-" + std::to_string(i)});
}

// The value of --flag=VALUE in the member's recorded etcd command line.
std::string flag_of(const NativeCluster& c, const std::string& member, const std::string& flag) {
  std::ifstream f(c.etcd_dir() + "/members/" + member + ".cmd");
  for (std::string line; std::getline(f, line);) {
    if (line.rfind(flag + "=", 0) == 0) return line.substr(flag.size() + 1);
  }
  FAIL("no " << flag << " for " << member);
  return {};
}

void healthy_cluster_agrees(const std::string& version) {
  FixtureOptions o;
  o.version = version;
  NativeCluster c(o);
  put_keys(c, "/agree/", 20);
  auto r = c.tool({"hashkv"}, {"-o", "json"});
  INFO("hashkv: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  auto doc = parse(r);
  CHECK(doc["verdict"] == "consistent");
  CHECK(doc["differing"].empty());
  REQUIRE(doc["members"].size() == 3);
  const auto hash = doc["members"][0]["hash"];
  CHECK(hash.is_number_unsigned());
  for (const auto& m : doc["members"]) {
    CHECK(m["state"] == "agrees");
    CHECK(m["hash"] == hash);
    CHECK(m["hash_revision"] == doc["revision"]);
    CHECK(m["compact_revision"] == -1);  // etcd's answer before any compaction
  }
  // The table: one row per member and the verdict.
  auto t = c.tool({"hashkv"});
  CHECK(t.rc == 0);
  CHECK(t.out.find("consistent at revision") != std::string::npos);
  for (const auto& m : c.members()) CHECK(t.out.find(m) != std::string::npos);

  // After a compaction every member reports it and they still agree.
  const long long rev = doc["revision"];
  put_keys(c, "/agree/", 5);
  c.ctl({"compaction", std::to_string(rev - 2), "--physical"});
  auto after = c.tool({"check"}, {"--consistency", "-o", "json"});
  INFO("check --consistency: " << after.out << after.err);
  CHECK(after.rc == 0);
  auto cd = parse(after);
  CHECK(cd["findings"].empty());
  CHECK(cd["hashkv"]["verdict"] == "consistent");
  CHECK(cd["hashkv"]["revision"].get<long long>() > rev);
  for (const auto& m : cd["hashkv"]["members"]) CHECK(m["compact_revision"] == rev - 2);
}

}  // namespace

TEST_CASE("hashkv: a healthy etcd 3.6 cluster agrees, before and after a compaction") { healthy_cluster_agrees("3.6"); }
TEST_CASE("hashkv: a healthy etcd 3.4 cluster agrees (no hash_revision from the server)") {
  healthy_cluster_agrees("3.4");
}

TEST_CASE("hashkv: a member restored from an older snapshot is named, exit 8") {
  FixtureOptions o;
  o.version = "3.6";
  NativeCluster c(o);
  const auto ms = c.members();
  const std::string victim = ms[2];
  put_keys(c, "/old/", 10);

  char tmpl[] = "/tmp/e2e-admin-hashkv.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::string snap = dir + "/old.db";
  auto saved = c.tool({"snapshot", "save", snap}, {"--member", victim});
  REQUIRE_MESSAGE(saved.rc == 0, saved.err);

  // The others go on while the victim will come back with the old data.
  put_keys(c, "/new/", 10);
  c.ctl({"del", "/old/3"});

  // Restored with the member's own name, peer URL, cluster and token, so
  // it rejoins under its old ID and the others accept it.
  c.act("stop", victim);
  // A leader that remembers how far the victim's log went would tell the
  // restored member to commit entries it no longer has, and etcd panics;
  // a new leader starts its bookkeeping afresh. Leadership moves at least
  // once (ms[0], then ms[1]).
  c.tool({"move-leader", ms[0]});
  auto moved = c.tool({"move-leader", ms[1]});
  REQUIRE_MESSAGE(moved.rc == 0, moved.err);
  const std::string data_dir = flag_of(c, victim, "--data-dir");
  e2e::run({"rm", "-rf", data_dir});
  const std::string etcdutl = c.etcd_bin() + "/etcdutl";
  auto restored = e2e::run({etcdutl, "snapshot", "restore", snap, "--name", victim, "--data-dir", data_dir,
                            "--initial-cluster", flag_of(c, victim, "--initial-cluster"), "--initial-cluster-token",
                            flag_of(c, victim, "--initial-cluster-token"), "--initial-advertise-peer-urls",
                            flag_of(c, victim, "--initial-advertise-peer-urls")});
  REQUIRE_MESSAGE(restored.rc == 0, restored.err);
  c.act("start", victim);

  // Once it answers again, it answers a different hash at the shared revision.
  e2e::CommandResult r;
  json doc;
  for (int i = 0; i < 60; ++i) {
    r = c.tool({"hashkv"}, {"-o", "json"});
    if (!r.out.empty()) {
      doc = json::parse(r.out);
      const json* v = hash_row(doc, victim);
      if (v != nullptr && (*v)["state"] != "error") break;
    }
    usleep(500000);
  }
  INFO("hashkv: " << r.out << r.err);
  CHECK(r.rc == 8);
  CHECK(doc["verdict"] == "inconsistent");
  CHECK(doc["differing"] == json::array({victim}));
  const json* v = hash_row(doc, victim);
  REQUIRE(v != nullptr);
  CHECK((*v)["state"] == "differs");
  CHECK((*hash_row(doc, ms[0]))["hash"] == (*hash_row(doc, ms[1]))["hash"]);
  CHECK((*v)["hash"] != (*hash_row(doc, ms[0]))["hash"]);

  // The table names it too, and check --consistency exits 8.
  auto t = c.tool({"hashkv"});
  CHECK(t.rc == 8);
  CHECK(t.out.find("members disagree: " + victim + " differ from the others") != std::string::npos);
  auto chk = c.tool({"check"}, {"--consistency"});
  INFO("check: " << chk.out << chk.err);
  CHECK(chk.rc == 8);
  CHECK(chk.out.find(victim) != std::string::npos);
  CHECK(chk.out.find("HASHKV") != std::string::npos);
  // Without --consistency check judges membership only: nothing wrong there.
  CHECK(c.tool({"check"}).rc == 0);
  e2e::run({"rm", "-rf", dir});
}
