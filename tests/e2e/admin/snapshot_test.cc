// snapshot save of a db of at least 64 MB, checked by etcd's own tool and
// restored; atomicity (no file when the member dies mid-stream), 0600,
// --overwrite; snapshot status --file; snapshot list/status of EtcdSnapshots.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "admin_e2e.h"
#include "etcd/client.h"

extern char** environ;

using namespace admin_e2e;

namespace {

// ~70 MB of distinct values: the db grows past 64 MB.
void fill(const NativeCluster& c, int megabytes) {
  auto cl = c.direct_client();
  std::string value(1000 * 1000, 'v');
  for (int i = 0; i < megabytes; ++i) {
    value[0] = static_cast<char>('a' + i % 26);
    auto r = cl->put("/big/" + std::to_string(i), value);
    REQUIRE_MESSAGE(r.ok(), r.error().one_line());
  }
}

std::string tmpdir() {
  char tmpl[] = "/tmp/e2e-admin-snap.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  return tmpl;
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0;
}

pid_t member_pid(const NativeCluster& c, const std::string& m) {
  std::ifstream f(c.etcd_dir() + "/pids/" + m + ".pid");
  pid_t pid = 0;
  f >> pid;
  return pid;
}

}  // namespace

TEST_CASE("snapshot save of a 64 MB+ db: verified by etcdutl, restorable, 0600, atomic, --overwrite") {
  FixtureOptions o;
  o.version = "3.6";
  o.auth = true;
  NativeCluster c(o);
  fill(c, 70);
  auto dir = tmpdir();
  std::string path = dir + "/snap.db";

  auto r = c.tool({"snapshot", "save", path}, {"-o", "json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  auto doc = json::parse(r.out);
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK(doc["size"] == static_cast<std::uint64_t>(st.st_size));
  CHECK(doc["size"].get<std::uint64_t>() >= 64u * 1000 * 1000);
  CHECK(doc["size"].get<std::uint64_t>() % 512 == 32);
  CHECK_FALSE(exists(path + ".part"));
  // A follower by default.
  auto status = json::parse(c.tool({"status"}, {"-o", "json"}).out);
  for (const auto& m : status["members"]) {
    if (m["name"] == doc["member"]) CHECK(m["role"] == "follower");
  }
  CHECK(r.err.find("snapshot: ") != std::string::npos);  // progress on stderr

  auto etcdutl = c.etcd_bin() + "/etcdutl";
  auto s = e2e::run({etcdutl, "snapshot", "status", path, "-w", "json"});
  REQUIRE_MESSAGE(s.rc == 0, s.err);
  auto sj = json::parse(s.out);
  CHECK(sj["totalKey"].get<int>() >= 70);
  CHECK(sj["revision"].get<std::int64_t>() >= doc["revision"].get<std::int64_t>());

  auto restore = e2e::run({etcdutl, "snapshot", "restore", path, "--data-dir", dir + "/restored"});
  REQUIRE_MESSAGE(restore.rc == 0, restore.err);
  CHECK(exists(dir + "/restored/member/snap/db"));

  // Our own verification agrees.
  auto v = e2e::run({NativeCluster::binary(), "snapshot", "status", "--file", path, "-o", "json"});
  CHECK(v.rc == 0);
  auto vj = json::parse(v.out);
  CHECK(vj["valid"] == true);
  CHECK(vj["sha256"] == doc["sha256"]);

  // An existing file is refused without --overwrite and kept as it was.
  auto again = c.tool({"snapshot", "save", path});
  CHECK(again.rc == 3);
  CHECK(again.err.find("--overwrite") != std::string::npos);
  auto over = c.tool({"snapshot", "save", path}, {"--overwrite", "-q", "--member", c.members()[0]});
  CHECK_MESSAGE(over.rc == 0, over.err);
  CHECK(over.err.empty());  // -q: no progress
  // The Go plugin's form.
  auto go = c.tool({"snapshot", dir + "/go.db"});
  CHECK_MESSAGE(go.rc == 0, go.err);
  CHECK(exists(dir + "/go.db"));

  // A corrupted copy fails verification.
  {
    std::fstream f(dir + "/go.db", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(4096);
    f.put('\x42');
  }
  auto bad = e2e::run({NativeCluster::binary(), "snapshot", "status", "--file", dir + "/go.db"});
  CHECK(bad.rc == 1);
  e2e::run({"rm", "-rf", dir});
}

TEST_CASE("a snapshot cut off mid-stream (member killed) leaves no file and exits non-zero") {
  FixtureOptions o;
  o.version = "3.5";
  NativeCluster c(o);
  fill(c, 70);
  auto dir = tmpdir();
  std::string path = dir + "/cut.db";
  auto victim = c.members()[0];

  std::vector<std::string> args{NativeCluster::binary(), "snapshot", "save", path, "-c", c.name(), "-n", c.ns(),
                                "--connect", "direct", "--member", victim};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, (dir + "/stderr").c_str(), O_WRONLY | O_CREAT, 0600);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);

  // Stop the member as soon as bytes arrived, then kill it: the stream
  // breaks in the middle.
  pid_t etcd_pid = member_pid(c, victim);
  REQUIRE(etcd_pid > 0);
  bool caught = false;
  for (int i = 0; i < 20000 && !caught; ++i) {
    struct stat st {};
    if (::stat((path + ".part").c_str(), &st) == 0 && st.st_size > 0) {
      ::kill(etcd_pid, SIGSTOP);
      caught = true;
      MESSAGE("stopped the member with " << st.st_size << " bytes in " << path << ".part");
    } else {
      usleep(500);
    }
  }
  REQUIRE(caught);
  c.act("kill", victim);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  std::ifstream ef(dir + "/stderr");
  std::string err((std::istreambuf_iterator<char>(ef)), {});
  MESSAGE("stderr: " << err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) != 0);
  CHECK_FALSE(exists(path));
  CHECK_FALSE(exists(path + ".part"));
  CHECK(err.find("error: ") != std::string::npos);
  e2e::run({"rm", "-rf", dir});
}

TEST_CASE("a stream that stalls (member paused) ends after --stall-timeout with 4 and no file") {
  FixtureOptions o;
  o.version = "3.6";
  NativeCluster c(o);
  fill(c, 70);
  auto dir = tmpdir();
  std::string path = dir + "/stall.db";
  auto victim = c.members()[1];
  std::vector<std::string> args{NativeCluster::binary(), "snapshot", "save", path, "-c", c.name(), "-n", c.ns(),
                                "--connect", "direct", "--member", victim, "--stall-timeout", "2s"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, (dir + "/stderr").c_str(), O_WRONLY | O_CREAT, 0600);
  pid_t pid = 0;
  REQUIRE(posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  pid_t etcd_pid = member_pid(c, victim);
  bool caught = false;
  for (int i = 0; i < 20000 && !caught; ++i) {
    struct stat st {};
    if (::stat((path + ".part").c_str(), &st) == 0 && st.st_size > 0) {
      ::kill(etcd_pid, SIGSTOP);
      caught = true;
    } else {
      usleep(500);
    }
  }
  REQUIRE(caught);
  auto t0 = Clock::now();
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  double took = seconds_since(t0);
  ::kill(etcd_pid, SIGCONT);
  std::ifstream ef(dir + "/stderr");
  std::string err((std::istreambuf_iterator<char>(ef)), {});
  MESSAGE("stalled snapshot ended after " << took << " s: " << err);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);
  CHECK(took < 5);
  CHECK(err.find("stalled") != std::string::npos);
  CHECK_FALSE(exists(path));
  CHECK_FALSE(exists(path + ".part"));
  e2e::run({"rm", "-rf", dir});
}

TEST_CASE("snapshot list and status read EtcdSnapshots, filtered by cluster") {
  FixtureOptions o;
  o.members = 1;
  NativeCluster c(o);
  auto make = [&](const std::string& name, const std::string& cluster) {
    json s = {{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"},
              {"kind", "EtcdSnapshot"},
              {"metadata", {{"name", name}, {"namespace", c.ns()}}},
              {"spec", {{"clusterRef", {{"name", cluster}}},
                        {"destination", {{"pvc", {{"claimName", "backups"}}}}}}}};
    e2e::kubectl({"create", "-f", "-"}, s.dump());
  };
  make("s1", c.name());
  make("s2", "other");
  c.kubectl({"patch", "etcdsnapshots.etcd-operator.cozystack.io", "s1", "--subresource=status", "--type=merge", "-p",
             R"({"status":{"phase":"Complete","artifact":{"uri":"file:///snapshot/data/s1.db","sizeBytes":20512,"checksum":"sha256:00"}}})"});
  auto all = e2e::run({NativeCluster::binary(), "snapshot", "list", "-n", c.ns(), "-o", "json"});
  REQUIRE_MESSAGE(all.rc == 0, all.err);
  CHECK(json::parse(all.out).size() == 2);
  auto mine = e2e::run({NativeCluster::binary(), "snapshot", "list", "-n", c.ns(), "-c", c.name(), "-o", "json"});
  auto rows = json::parse(mine.out);
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["name"] == "s1");
  CHECK(rows[0]["phase"] == "Complete");
  CHECK(rows[0]["size"] == 20512);
  CHECK(rows[0]["uri"] == "file:///snapshot/data/s1.db");
  auto one = e2e::run({NativeCluster::binary(), "snapshot", "status", "s1", "-n", c.ns()});
  CHECK(one.rc == 0);
  CHECK(one.out.find("Complete") != std::string::npos);
  auto none = e2e::run({NativeCluster::binary(), "snapshot", "status", "nope", "-n", c.ns()});
  CHECK(none.rc == 6);
  auto empty = e2e::run({NativeCluster::binary(), "snapshot", "list", "-n", c.ns(), "-c", "nobody"});
  CHECK(empty.out == "no snapshots\n");
}

TEST_CASE("snapshot save --via-cr creates an EtcdSnapshot and waits for the operator's verdict") {
  FixtureOptions o;
  o.members = 1;
  o.version = "3.6";
  NativeCluster c(o);
  auto dir = tmpdir();
  auto args = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> a{NativeCluster::binary(), "snapshot", "save", "--via-cr", "--name", name, "-c", c.name(),
                               "-n", c.ns(), "--connect", "direct", "--operator", c.ns() + "/etcd-operator"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };

  Background ok(args("ok", {"--pvc", "backups", "--sub-path", "etcd", "-o", "json"}), dir);
  finish_cr(c, "etcdsnapshots.etcd-operator.cozystack.io", "ok", R"({"status":{"phase":"Complete","artifact":{"uri":"file:///snapshot/data/etcd/ok.db","sizeBytes":20512,"checksum":"sha256:ab"},"conditions":[{"type":"Ready","status":"True","reason":"SnapshotStored","message":"stored","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})");
  auto r = ok.collect();
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  auto doc = json::parse(r.out);
  CHECK(doc["name"] == "ok");
  CHECK(doc["phase"] == "Complete");
  CHECK(doc["uri"] == "file:///snapshot/data/etcd/ok.db");
  CHECK(doc["size"] == 20512);
  auto cr = json::parse(c.kubectl({"get", "etcdsnapshots.etcd-operator.cozystack.io", "ok", "-o", "json"}));
  CHECK(cr["spec"]["clusterRef"]["name"] == c.name());
  CHECK(cr["spec"]["destination"]["pvc"]["claimName"] == "backups");
  CHECK(cr["spec"]["destination"]["pvc"]["subPath"] == "etcd");

  Background bad(args("bad", {"--pvc", "backups"}), dir);
  finish_cr(c, "etcdsnapshots.etcd-operator.cozystack.io", "bad", R"({"status":{"phase":"Failed","conditions":[{"type":"Ready","status":"False","reason":"JobFailed","message":"backoff limit reached","lastTransitionTime":"2026-01-01T00:00:00Z"}]}})");
  auto f = bad.collect();
  CHECK(f.rc == 1);
  CHECK(f.err.find("JobFailed: backoff limit reached") != std::string::npos);

  // Nobody writes a status by the pickup time (--timeout here, shorter
  // than the minute): refused (3), the controller named, the CR deleted
  // (docs/rules.md#one-shot-request-pickup).
  auto slow = e2e::run(args("slow", {"--pvc", "backups", "--timeout", "2s"}));
  INFO("stderr: " << slow.err);
  CHECK(slow.rc == 3);
  CHECK(slow.err.find("nothing picked it up within 2s (no status written): the EtcdSnapshot controller of the "
                      "etcd-operator.cozystack.io/v1alpha2 operator is missing or not running; the EtcdSnapshot was "
                      "deleted") != std::string::npos);
  CHECK(e2e::kubectl_result({"get", "etcdsnapshots.etcd-operator.cozystack.io", "slow", "-n", c.ns()}).rc != 0);
  // Picked up but not finished in time: 4, and the CR stays.
  Background late(args("late", {"--pvc", "backups", "--timeout", "3s"}), dir);
  finish_cr(c, "etcdsnapshots.etcd-operator.cozystack.io", "late", R"({"status":{"phase":"Running"}})");
  auto l = late.collect();
  CHECK(l.rc == 4);
  CHECK(l.err.find("EtcdSnapshot phase: Running") != std::string::npos);
  CHECK(e2e::kubectl_result({"get", "etcdsnapshots.etcd-operator.cozystack.io", "late", "-n", c.ns()}).rc == 0);

  // Without a running operator nothing would take it: refused, nothing created.
  c.kubectl({"delete", "lease", "aa20b3a9.etcd-operator.cozystack.io"});
  auto refused = e2e::run(args("refused", {"--pvc", "backups"}));
  CHECK(refused.rc == 3);
  CHECK(refused.err.find("the operator does not run") != std::string::npos);
  CHECK(e2e::kubectl_result({"get", "etcdsnapshots.etcd-operator.cozystack.io", "refused", "-n", c.ns()}).rc != 0);

  auto nodest = e2e::run(args("x", {}));
  CHECK(nodest.rc == 128);
  e2e::run({"rm", "-rf", dir});
}
