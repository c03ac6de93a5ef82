// kubectl-etcd over --connect port-forward: each member reached through the
// apiserver's pods/portforward, which the apiserver hands to the node agent
// (tests/testenv/node-agent: the stand-in for a kubelet's streaming server
// only), on TLS+auth clusters; the explained 403 for a user without
// pods/portforward; a node agent killed mid-command; no listener, fd or
// thread left behind by 50 sessions in one process.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <set>
#include <thread>

#include "admin/session.h"
#include "admin/target.h"
#include "admin_e2e.h"
#include "kube/client.h"
#include "kube/config.h"

using namespace admin_e2e;

namespace {

FixtureOptions tls_auth(std::vector<std::string> extra = {}) {
  FixtureOptions o;
  o.version = "3.6";
  o.tls = true;
  o.auth = true;
  o.extra = std::move(extra);
  return o;
}

std::size_t count_dir(const std::string& path) {
  std::size_t n = 0;
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

// Listening TCP sockets that belong to this process.
std::size_t own_listeners() {
  std::set<std::string> inodes;
  if (DIR* d = opendir("/proc/self/fd")) {
    while (dirent* e = readdir(d)) {
      char target[256];
      std::string link = std::string("/proc/self/fd/") + e->d_name;
      ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      std::string t(target, static_cast<std::size_t>(n));
      if (t.rfind("socket:[", 0) == 0) inodes.insert(t.substr(8, t.size() - 9));
    }
    closedir(d);
  }
  std::size_t count = 0;
  std::ifstream tcp("/proc/net/tcp");
  std::string line;
  std::getline(tcp, line);
  while (std::getline(tcp, line)) {
    std::istringstream in(line);
    std::string sl, local, remote, st, queues, tr, retr, uid, timeout, inode;
    in >> sl >> local >> remote >> st >> queues >> tr >> retr >> uid >> timeout >> inode;
    if (st == "0A" && inodes.count(inode) != 0) ++count;
  }
  return count;
}

}  // namespace

TEST_CASE("kubectl-etcd's commands over port-forward on a TLS+auth cluster") {
  NativeCluster c(tls_auth());

  auto health = c.tool_via("port-forward", {"health"}, {"-o", "json"});
  CHECK_MESSAGE(health.rc == 0, health.err);

  auto status = c.tool_via("port-forward", {"status"}, {"-o", "json"});
  REQUIRE_MESSAGE(status.rc == 0, status.err);
  auto s = parse(status);
  CHECK(s["cluster"]["clusterID"] == c.info()["clusterID"]);
  CHECK(s["cluster"]["authEnabled"] == true);
  REQUIRE(s["members"].size() == 3);

  auto list = c.tool_via("port-forward", {"member", "list"}, {"-o", "json"});
  REQUIRE_MESSAGE(list.rc == 0, list.err);
  auto l = parse(list);
  REQUIRE(l["members"].size() == 3);
  for (const auto& m : l["members"]) CHECK(m["id"] == c.id_of(m["name"]));

  auto one = c.tool_via("port-forward", {"status"}, {"-p", c.members()[1], "-o", "json"});
  CHECK_MESSAGE(one.rc == 0, one.err);

  auto check = c.tool_via("port-forward", {"check"});
  CHECK_MESSAGE(check.rc == 0, check.out << check.err);
  auto alarms = c.tool_via("port-forward", {"alarm", "list"});
  CHECK_MESSAGE(alarms.rc == 0, alarms.err);

  char tmpl[] = "/tmp/pf-snapshot.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string path = std::string(tmpl) + "/backup.db";
  auto snap = c.tool_via("port-forward", {"snapshot", "save", path}, {"-o", "json"});
  CHECK_MESSAGE(snap.rc == 0, snap.err);
  auto verified = e2e::run({c.etcd_bin() + "/etcdutl", "snapshot", "status", path, "-w", "json"});
  CHECK_MESSAGE(verified.rc == 0, verified.err);
  e2e::run({"rm", "-rf", tmpl});

  // auto is port-forward outside a cluster (no KUBERNETES_SERVICE_HOST here).
  auto by_auto = c.tool_via("auto", {"status"}, {"-o", "json", "-v"});
  CHECK_MESSAGE(by_auto.rc == 0, by_auto.err);
  CHECK(by_auto.err.find("/portforward?ports=2379") != std::string::npos);
}

TEST_CASE("a user without pods/portforward gets the explained 403 (exit 7)") {
  NativeCluster c(tls_auth());
  std::string dir = e2e::var("TESTENV_DIR");
  char tmpl[] = "/tmp/pf-user.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string pki = tmpl;
  std::string user = "pf-" + c.ns();
  auto made = e2e::run({"bash", "-c",
                        "set -e; cp \"$1/pki/ca.crt\" \"$1/pki/ca.key\" \"$2/\"; . \"$3/lib/pki.sh\"; "
                        "pki_cert \"$2\" ca user \"/CN=$4\" client",
                        "bash", dir, pki, e2e::var("TESTENV_TOOLS"), user});
  REQUIRE_MESSAGE(made.rc == 0, made.err);
  std::string kc = pki + "/kubeconfig";
  std::string kubectl = e2e::var("TESTENV_KUBECTL");
  for (std::vector<std::string> args :
       {std::vector<std::string>{"config", "set-cluster", "t", "--server", e2e::var("TESTENV_APISERVER"),
                                 "--certificate-authority", pki + "/ca.crt", "--embed-certs"},
        {"config", "set-credentials", "u", "--client-certificate", pki + "/user.crt", "--client-key",
         pki + "/user.key", "--embed-certs"},
        {"config", "set-context", "t", "--cluster", "t", "--user", "u", "--namespace", c.ns()},
        {"config", "use-context", "t"}}) {
    args.insert(args.begin(), {kubectl, "--kubeconfig", kc});
    auto r = e2e::run(args);
    REQUIRE_MESSAGE(r.rc == 0, r.err);
  }
  // Everything the command reads, but not pods/portforward.
  c.kubectl({"create", "role", "reader", "--verb=get,list",
             "--resource=pods,secrets,etcdclusters.etcd-operator.cozystack.io,etcdmembers.etcd-operator.cozystack.io,"
             "deployments.apps,leases.coordination.k8s.io"});
  c.kubectl({"create", "rolebinding", "reader", "--role=reader", "--user=" + user});

  auto r = c.tool_via("port-forward", {"status"}, {}, {{"KUBECONFIG", kc}});
  e2e::run({"rm", "-rf", pki});
  INFO(r.err);
  CHECK(r.rc == 7);
  CHECK(r.err.find("cannot create pods/portforward") != std::string::npos);
  CHECK(r.err.find("RBAC") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_CASE("a node agent killed mid-command gives per-member errors within the timeout, never a hang") {
  // Its own Node and agent, so other tests keep theirs. The agent runs
  // again for the fixture's teardown (it removes the deleted pods), then
  // stops for good.
  struct Agent {
    std::string node = e2e::unique_name("pf-node");
    e2e::CommandResult start() const { return e2e::run({e2e::testenv_tool("node-agent"), "start", "--node", node}); }
    e2e::CommandResult stop() const { return e2e::run({e2e::testenv_tool("node-agent"), "stop", "--node", node}); }
    ~Agent() {
      stop();
      e2e::kubectl_result({"delete", "node", node, "--wait=false"});
    }
  } agent;
  const std::string& node = agent.node;
  auto started = agent.start();
  REQUIRE_MESSAGE(started.rc == 0, started.err);
  NativeCluster c(tls_auth({"--node", node}));
  auto before = c.tool_via("port-forward", {"status"}, {"-o", "json"});
  REQUIRE_MESSAGE(before.rc == 0, before.err);

  // A database large enough that its snapshot is still streaming when the
  // agent goes.
  std::string value(1000 * 1000, 'v');
  for (int i = 0; i < 24; ++i) {
    e2e::run({e2e::testenv_tool("etcd-cluster"), "ctl", "--dir", c.etcd_dir(), "--", "put", "big/" + std::to_string(i)},
             {}, value);
  }
  char tmpl[] = "/tmp/pf-kill.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  std::string path = std::string(tmpl) + "/backup.db";
  e2e::CommandResult snap;
  auto t0 = Clock::now();
  std::thread saver([&] {
    snap = c.tool_via("port-forward", {"snapshot", "save", path}, {"--member", c.members()[0]});
  });
  // Mid-stream for certain: once the first bytes are on disk the member is
  // paused (SIGSTOP), so the stream stalls until the agent goes; a fixed
  // sleep lost the race to a snapshot that streamed in under 0.7 s.
  const std::string part = path + ".part";
  struct stat st {};
  bool streaming = false;
  while (!(streaming = stat(part.c_str(), &st) == 0 && st.st_size > 0) && seconds_since(t0) < 20) usleep(2 * 1000);
  if (!streaming) saver.join();  // a REQUIRE must not leave the thread joinable
  REQUIRE_MESSAGE(streaming, "the snapshot wrote nothing to " << part << " in 20 s");
  c.act("pause", c.members()[0]);
  auto stopped = agent.stop();
  saver.join();
  double took = seconds_since(t0);
  c.act("resume", c.members()[0]);
  CHECK(stopped.rc == 0);
  INFO("snapshot: rc " << snap.rc << " " << snap.err);
  CHECK(snap.rc != 0);
  CHECK(took < 30);
  CHECK(access(path.c_str(), F_OK) != 0);
  // The member's own error: named by its pod or its endpoint (the pod IP).
  std::string ip = c.kubectl({"get", "pod", c.members()[0], "-o", "jsonpath={.status.podIP}"});
  CHECK((snap.err.find(c.members()[0]) != std::string::npos || snap.err.find(ip + ":2379") != std::string::npos));
  e2e::run({"rm", "-rf", tmpl});

  // With the agent gone every member is an error of its own, in time.
  auto t1 = Clock::now();
  auto after = c.tool_via("port-forward", {"status"}, {"-o", "json"});
  CHECK(seconds_since(t1) < 20);
  INFO(after.out << after.err);
  CHECK(after.rc != 0);
  CHECK(after.rc != 7);
  for (const auto& m : c.members()) CHECK((after.out + after.err).find(m) != std::string::npos);
  CHECK((after.out + after.err).find("kubelet") != std::string::npos);
  CHECK(agent.start().rc == 0);
}

TEST_CASE("50 port-forward sessions in one process leave no listener, fd or thread behind") {
  NativeCluster c(tls_auth());
  kube::ConfigOptions co;
  co.kubeconfig = e2e::var("KUBECONFIG");
  auto cfg = kube::load_config(co);
  REQUIRE(cfg.ok());
  auto kube = kube::Client::create(*cfg);
  REQUIRE(kube.ok());
  auto round = [&] {
    admin::TargetOptions o;
    o.ns = c.ns();
    o.cluster = c.name();
    o.connect = "port-forward";
    o.operator_deployment = c.ns() + "/etcd-operator";
    auto n = admin::normalize(o, [](const std::string&) { return std::optional<std::string>(); });
    REQUIRE(n.ok());
    auto t = admin::resolve(*n, kube->get());
    REQUIRE_MESSAGE(t.ok(), t.error().one_line());
    auto s = admin::open_session(std::move(t.value()));
    REQUIRE(s.ok());
    std::vector<std::string> eps;
    for (const auto* m : s->target.selected()) eps.push_back(m->endpoint);
    for (const auto& r : s->etcd->status_all(eps)) CHECK_MESSAGE(r.result.ok(), r.endpoint);
    CHECK(own_listeners() == 3);  // one per member while the session lives
  };
  round();  // gRPC and curl start their own lasting threads once
  std::size_t threads = count_dir("/proc/self/task");
  std::size_t fds = count_dir("/proc/self/fd");
  for (int i = 0; i < 50; ++i) round();
  // gRPC closes channels asynchronously: give it a moment.
  for (int i = 0; i < 50 && (count_dir("/proc/self/task") > threads || count_dir("/proc/self/fd") > fds); ++i) {
    usleep(100 * 1000);
  }
  CHECK(own_listeners() == 0);
  CHECK(count_dir("/proc/self/task") <= threads);
  CHECK(count_dir("/proc/self/fd") <= fds);
}
