// member list and status against etcdctl on the same cluster, field by
// field, on etcd 3.4, 3.5 and 3.6 (3.6 with TLS and auth, 3.4 plaintext);
// every output format; target errors and their exit codes.
#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

FixtureOptions options_for(const std::string& version) {
  FixtureOptions o;
  o.version = version;
  o.tls = version != "3.4";
  o.auth = version == "3.6";
  return o;
}

void member_list_matches_etcdctl(const NativeCluster& c) {
  auto r = c.tool({"member", "list"}, {"-o", "json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  auto got = parse(r);
  auto want = json::parse(c.ctl({"member", "list", "-w", "json"}));
  REQUIRE(got["members"].size() == want["members"].size());
  for (const auto& w : want["members"]) {
    std::string id = hex(w["ID"].get<std::uint64_t>());
    CAPTURE(id);
    const json* g = nullptr;
    for (const auto& m : got["members"]) {
      if (m["id"] == id) g = &m;
    }
    REQUIRE(g != nullptr);
    CHECK((*g)["name"] == w["name"]);
    CHECK((*g)["peerURLs"] == w["peerURLs"]);
    CHECK((*g)["clientURLs"] == w["clientURLs"]);
    CHECK((*g)["isLearner"] == w.value("isLearner", false));
    CHECK((*g)["role"] == "voter");
    CHECK((*g)["started"] == true);
    CHECK((*g)["cr"] == "ok");
    CHECK((*g)["pod"] == w["name"]);
    CHECK((*g)["findings"] == json::array());
    CHECK(id == c.id_of(w["name"]));
  }
  CHECK(got["findings"] == json::array());
}

void status_matches_etcdctl(const NativeCluster& c) {
  // An idle cluster: raft indexes stay put between the two reads.
  auto r = c.tool({"status"}, {"-o", "json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  auto got = parse(r);
  auto want = json::parse(c.ctl({"endpoint", "status", "-w", "json"}));
  REQUIRE(got["members"].size() == want.size());
  CHECK(got["cluster"]["name"] == c.name());
  CHECK(got["cluster"]["clusterID"] == c.info()["clusterID"]);
  CHECK(got["cluster"]["replicas"]["spec"] == 3);
  CHECK(got["cluster"]["authEnabled"] == c.info()["auth"]);
  int leaders = 0;
  for (const auto& w : want) {
    const auto& ws = w["Status"];
    std::string id = hex(ws["header"]["member_id"].get<std::uint64_t>());
    CAPTURE(id);
    const json* g = nullptr;
    for (const auto& m : got["members"]) {
      if (m["id"] == id) g = &m;
    }
    REQUIRE(g != nullptr);
    CHECK((*g)["leader"] == hex(ws["leader"].get<std::uint64_t>()));
    CHECK((*g)["version"] == ws["version"]);
    CHECK((*g)["dbSize"] == ws["dbSize"]);
    CHECK((*g)["dbSizeInUse"] == ws["dbSizeInUse"]);
    CHECK((*g)["raftTerm"] == ws["raftTerm"]);
    CHECK((*g)["raftIndex"] == ws["raftIndex"]);
    CHECK((*g)["raftAppliedIndex"] == ws["raftAppliedIndex"]);
    CHECK((*g)["errors"] == json::array());
    CHECK((*g)["ready"] == true);
    CHECK((*g)["pod"] == (*g)["name"]);
    if (ws.contains("dbSizeQuota") && ws["dbSizeQuota"].get<std::int64_t>() > 0) {
      CHECK((*g)["quota"] == ws["dbSizeQuota"]);
    } else {
      CHECK((*g)["quota"] == 2147483648LL);
    }
    if ((*g)["role"] == "leader") ++leaders;
  }
  CHECK(leaders == 1);
}

void every_format(const NativeCluster& c) {
  for (const auto& cmd : std::vector<std::vector<std::string>>{{"status"}, {"member", "list"}, {"members"},
                                                               {"health"}, {"check"}, {"alarm", "list"}}) {
    CAPTURE(cmd.front());
    auto table = c.tool(cmd);
    CHECK_MESSAGE(table.rc == 0, table.err);
    auto wide = c.tool(cmd, {"-o", "wide"});
    CHECK(wide.rc == 0);
    auto js = c.tool(cmd, {"-o", "json"});
    CHECK(js.rc == 0);
    CHECK_FALSE(json::parse(js.out, nullptr, false).is_discarded());
    auto yaml = c.tool(cmd, {"-o", "yaml"});
    CHECK(yaml.rc == 0);
    CHECK_FALSE(yaml.out.empty());
    CHECK(yaml.out.front() != '{');
  }
  auto st = c.tool({"status"});
  CHECK(st.out.find("Cluster ID:     " + c.info()["clusterID"].get<std::string>()) != std::string::npos);
  CHECK(st.out.find("NAME") != std::string::npos);
  auto wide = c.tool({"status"}, {"-o", "wide"});
  CHECK(wide.out.find("ENDPOINT") != std::string::npos);
  CHECK(st.out.find("ENDPOINT") == std::string::npos);
  auto alarms = c.tool({"alarm", "list"});
  CHECK(alarms.out == "no alarms\n");
}

}  // namespace

TEST_CASE("member list and status agree with etcdctl, in every format (3.4, 3.5, 3.6)") {
  for (const auto& v : versions()) {
    CAPTURE(v);
    NativeCluster c(options_for(v));
    member_list_matches_etcdctl(c);
    status_matches_etcdctl(c);
    every_format(c);
  }
}

TEST_CASE("status -p shows one member; an unknown cluster is 6; port-forward is 128; a stopped member makes 5") {
  NativeCluster c(options_for("3.5"));
  auto ms = c.members();
  auto one = c.tool({"status"}, {"-p", ms[1], "-o", "json"});
  REQUIRE_MESSAGE(one.rc == 0, one.err);
  auto doc = json::parse(one.out);
  REQUIRE(doc["members"].size() == 1);
  CHECK(doc["members"][0]["name"] == ms[1]);
  CHECK(doc["members"][0]["id"] == c.id_of(ms[1]));

  auto missing = e2e::run({NativeCluster::binary(), "status", "-c", "nope", "-n", c.ns(), "--connect", "direct"});
  CHECK(missing.rc == 6);
  CHECK(missing.err.rfind("error: ", 0) == 0);

  auto pf = e2e::run({NativeCluster::binary(), "status", "-c", c.name(), "-n", c.ns(), "--connect", "port-forward"});
  CHECK(pf.rc == 0);  // through the node agent, the kubelet's stand-in
  auto bad_connect = e2e::run({NativeCluster::binary(), "status", "-c", c.name(), "-n", c.ns(), "--connect", "tunnel"});
  CHECK(bad_connect.rc == 128);

  auto bad = c.tool({"status"}, {"-o", "xml"});
  CHECK(bad.rc == 128);

  c.act("stop", ms[2]);
  auto partial = c.tool({"status"}, {"-o", "json"});
  CHECK(partial.rc == 5);
  auto pdoc = json::parse(partial.out);
  int errors = 0;
  for (const auto& m : pdoc["members"]) {
    if (!m["errors"].empty()) {
      ++errors;
      CHECK(m["name"] == ms[2]);
      CHECK(m["dbSize"].is_null());
    }
  }
  CHECK(errors == 1);
  // member list reads the membership from a member that answers (exit 0);
  // --probe asks each member, as status does (exit 5).
  auto ml = c.tool({"member", "list"}, {"-o", "json"});
  CHECK(ml.rc == 0);
  REQUIRE(json::parse(ml.out)["members"].size() == 3);
  auto probed = c.tool({"member", "list"}, {"-o", "json", "--probe"});
  CHECK(probed.rc == 5);
  const auto mdoc = json::parse(probed.out);
  REQUIRE(mdoc["members"].size() == 3);
  for (const auto& m : mdoc["members"]) CHECK(m["reachable"] == (m["name"] != ms[2]));
  c.act("start", ms[2]);
}

TEST_CASE("--endpoints with etcdctl's TLS flags and ETCDCTL_* reach any etcd without Kubernetes") {
  NativeCluster c(options_for("3.6"));
  auto env = e2e::parse_env_file(c.etcd_dir() + "/cluster.env");
  // Without -c the cluster's root Secret is not used: etcdctl's flags give
  // the identity (the fixture's client certificate has CN root).
  auto r = e2e::run({NativeCluster::binary(), "status", "--endpoints", env["ETCD_IP_ENDPOINTS"], "--cacert",
                     env["ETCD_CACERT"], "--cert", env["ETCD_CERT"], "--key", env["ETCD_KEY"], "--tls-server-name",
                     "localhost", "-o", "json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  CHECK(json::parse(r.out)["members"].size() == 3);
  CHECK_FALSE(json::parse(r.out).contains("cluster"));

  auto viaenv = e2e::run({NativeCluster::binary(), "member", "list", "-o", "json", "--tls-server-name", "localhost"},
                         {{"ETCDCTL_ENDPOINTS", env["ETCD_IP_ENDPOINTS"]},
                          {"ETCDCTL_CACERT", env["ETCD_CACERT"]},
                          {"ETCDCTL_CERT", env["ETCD_CERT"]},
                          {"ETCDCTL_KEY", env["ETCD_KEY"]},
                          {"KUBECONFIG", "/nonexistent"}});
  REQUIRE_MESSAGE(viaenv.rc == 0, viaenv.err);
  CHECK(json::parse(viaenv.out)["members"].size() == 3);

  // TLS is verified: a wrong server name fails to connect (2).
  auto wrong = e2e::run({NativeCluster::binary(), "status", "--endpoints", env["ETCD_IP_ENDPOINTS"], "--cacert",
                         env["ETCD_CACERT"], "--cert", env["ETCD_CERT"], "--key", env["ETCD_KEY"],
                         "--tls-server-name", "wrong.example", "--command-timeout", "2s"});
  CHECK(wrong.rc == 2);
}

TEST_CASE("auth: the root password comes from the cluster's Secret and never shows") {
  NativeCluster c(options_for("3.6"));
  auto secret = json::parse(c.kubectl({"get", "secret", c.name() + "-root-credentials", "-o", "json"}));
  auto pw = e2e::run({"base64", "-d"}, {}, secret["data"]["password"].get<std::string>()).out;
  REQUIRE(pw.size() >= 16);
  for (const auto& cmd : std::vector<std::vector<std::string>>{{"status"}, {"member", "list"}, {"health"}}) {
    for (const auto& fmt : {"table", "json", "yaml"}) {
      auto r = c.tool(cmd, {"-o", fmt, "-v"});
      CHECK_MESSAGE(r.rc == 0, r.err);
      CHECK(r.out.find(pw) == std::string::npos);
      CHECK(r.err.find(pw) == std::string::npos);
    }
  }
  // A wrong password from -s is an authentication failure, not a leak.
  c.kubectl({"create", "secret", "generic", "wrong", "--type=kubernetes.io/basic-auth",
             "--from-literal=password=not-the-password"});
  auto wrong = c.tool({"member", "list"}, {"-s", "wrong"});
  CHECK(wrong.rc != 0);
  CHECK(wrong.err.find("not-the-password") == std::string::npos);
  CHECK(wrong.err.find("authentication failed") != std::string::npos);
}
