// check: each finding code from a fixture bent to show it (a ghost member,
// an orphan learner, an isVoter mismatch, a missing role label, a replica
// mismatch), and a clean cluster with none.
#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

std::vector<std::string> codes(const json& doc) {
  std::vector<std::string> out;
  for (const auto& f : doc["findings"]) out.push_back(f["code"]);
  return out;
}

const json* finding(const json& doc, const std::string& code) {
  for (const auto& f : doc["findings"]) {
    if (f["code"] == code) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("check reports each finding from a fixture built to show it") {
  FixtureOptions o;
  o.version = "3.6";
  NativeCluster c(o);
  auto ms = c.members();
  auto clean = c.tool({"check"}, {"-o", "json"});
  REQUIRE_MESSAGE(clean.rc == 0, clean.out << clean.err);
  CHECK(codes(json::parse(clean.out)).empty());
  CHECK(c.tool({"check"}).out == "no findings\n");

  // An isVoter mismatch on ms[0] (etcd: voter; EtcdMember: not).
  c.kubectl({"patch", "etcdmembers.etcd-operator.cozystack.io", ms[0], "--subresource=status", "--type=merge", "-p",
             R"({"status":{"isVoter":false}})"});
  // A voter's pod without the role label (ms[1]).
  c.kubectl({"label", "pod", ms[1], "etcd-operator.cozystack.io/role-"});
  // An orphan learner: added to etcd, no EtcdMember.
  c.reconfigure({"member", "add", "orphan", "--learner", "--peer-urls", "https://orphan.etcd." + c.ns() + ".svc:2380"});
  // A ghost: etcd forgets ms[2] (removed by hand), its EtcdMember stays.
  c.reconfigure({"member", "remove", c.id_of(ms[2])});
  // A replica mismatch: the spec asks for 5 while 3 run (observed stays 3).
  c.kubectl({"patch", "etcdclusters.etcd-operator.cozystack.io", c.name(), "--type=merge", "-p",
             R"({"spec":{"replicas":5}})"});

  auto r = c.tool({"check"}, {"-o", "json"});
  CHECK(r.rc == 1);
  auto doc = parse(r);
  MESSAGE("findings: " << doc["findings"].dump());
  const json* isvoter = finding(doc, "ISVOTER_MISMATCH");
  REQUIRE(isvoter);
  CHECK((*isvoter)["member"] == ms[0]);
  CHECK((*isvoter)["severity"] == "error");
  const json* role = nullptr;
  for (const auto& f : doc["findings"]) {
    if (f["code"] == "ROLE_LABEL_MISMATCH" && f["member"] == ms[1]) role = &f;
  }
  REQUIRE(role);
  const json* ghost = finding(doc, "GHOST_MEMBER");
  REQUIRE(ghost);
  CHECK((*ghost)["member"] == ms[2]);
  CHECK((*ghost)["id"] == c.id_of(ms[2]));
  const json* orphan = finding(doc, "ORPHAN_LEARNER");
  REQUIRE(orphan);
  CHECK((*orphan)["member"] == "https://orphan.etcd." + c.ns() + ".svc:2380");
  const json* replicas = finding(doc, "REPLICAS_MISMATCH");
  REQUIRE(replicas);
  CHECK((*replicas)["severity"] == "transient");
  CHECK((*replicas)["message"] == "spec.replicas 5, status.observed.replicas 3, running EtcdMembers 3");

  // Health judges the same findings: exit 1 even though the reachable members answer.
  auto h = c.tool({"health"}, {"-o", "json", "--command-timeout", "2s"});
  CHECK(h.rc == 1);
  CHECK(codes(json::parse(h.out)).size() == codes(doc).size());
  // The member table shows them per member.
  auto ml = c.tool({"member", "list"}, {"-o", "json", "--probe"});
  CHECK(ml.rc == 5);  // the ghost's etcd left the cluster and stopped: it does not answer its Status
  bool orphan_row = false;
  const auto ml_doc = json::parse(ml.out);
  for (const auto& m : ml_doc["members"]) {
    if (m["role"] == "learner") {
      orphan_row = true;
      CHECK(m["cr"] == "-");
      CHECK(m["findings"] == json::array({"ORPHAN_LEARNER"}));
      CHECK(m["started"] == false);
    }
    if (m["name"] == ms[2]) {
      CHECK(m["findings"] == json::array({"GHOST_MEMBER"}));
      CHECK(m["role"] == "-");
      CHECK(m["reachable"] == false);
    }
  }
  CHECK(orphan_row);
}

TEST_CASE("check: an operator that does not run is a finding; one that runs is not") {
  FixtureOptions o;
  o.members = 1;
  o.version = "3.5";
  NativeCluster c(o);
  REQUIRE(c.tool({"check"}).rc == 0);
  c.kubectl({"delete", "lease", "aa20b3a9.etcd-operator.cozystack.io"});
  auto r = c.tool({"check"}, {"-o", "json"});
  CHECK(r.rc == 1);
  auto doc = parse(r);
  REQUIRE(doc["findings"].size() == 1);
  CHECK(doc["findings"][0]["code"] == "OPERATOR_INACTIVE");
  const std::string message = doc["findings"][0]["message"];
  // The fixture's Deployment is at 0 replicas: that is said, not a missing replica.
  CHECK(message.find("the operator is scaled down (its Deployment has spec.replicas 0)") != std::string::npos);
  // It says where it looked, so a user whose operator runs elsewhere can point it there.
  CHECK(message.find("looked at Deployment " + c.ns() + "/etcd-operator and Lease " + c.ns() +
                     "/aa20b3a9.etcd-operator.cozystack.io") != std::string::npos);
  CHECK(message.find("--operator NS/NAME") != std::string::npos);
  // Ready replicas count as running too.
  c.kubectl({"patch", "deployment", "etcd-operator", "--subresource=status", "--type=merge", "-p",
             R"({"status":{"replicas":1,"readyReplicas":1}})"});
  CHECK(c.tool({"check"}).rc == 0);
}

// Issue 36: a voter the operator and etcd call healthy that no client can
// dial. Here the tool dials ms[0] by a name its serving certificate lacks
// (the headless-service annotation points it at <m>.etcd-headless.<ns>.svc,
// the certificate names *.etcd.<ns>.svc), as a cluster whose certificates
// name other Services than the operator's; then a voter whose etcd stopped.
TEST_CASE("check: a voter that cannot be dialled is a finding with the dial error and the certificate that explains it") {
  FixtureOptions o;
  o.version = "3.6";
  NativeCluster c(o);
  auto ms = c.members();
  REQUIRE(c.tool({"check"}).rc == 0);
  c.kubectl({"annotate", "etcdmembers.etcd-operator.cozystack.io", ms[0],
             "etcd-operator.cozystack.io/headless-service-name=etcd-headless"});
  const std::string host = ms[0] + ".etcd-headless." + c.ns() + ".svc";

  auto r = c.tool({"check"}, {"-o", "json"});
  CHECK(r.rc == 1);
  auto doc = parse(r);
  REQUIRE(doc["findings"].size() == 1);
  const json& f = doc["findings"][0];
  CHECK(f["code"] == "UNREACHABLE_MEMBER");
  CHECK(f["severity"] == "error");
  CHECK(f["member"] == ms[0]);
  CHECK(f["id"] == c.id_of(ms[0]));
  const std::string message = f["message"];
  CHECK(message.find("voter cannot be dialled: ") == 0);
  CHECK(message.find("Peer name " + host + " is not in peer certificate") != std::string::npos);
  // The certs finding that explains it, as `certs` reports it.
  CHECK(message.find("`kubectl etcd certs` finds why: ") != std::string::npos);
  CHECK(message.find("does not cover today's member " + host) != std::string::npos);
  auto certs = e2e::run({NativeCluster::binary(), "certs", "-c", c.name(), "-n", c.ns(), "-o", "json"});
  CHECK(certs.rc == 1);
  CHECK(certs.out.find("san-today") != std::string::npos);
  // The table names it too; health reports the same finding.
  auto table = c.tool({"check"});
  CHECK(table.rc == 1);
  CHECK(table.out.find("UNREACHABLE_MEMBER") != std::string::npos);
  auto h = c.tool({"health"}, {"-o", "json", "--command-timeout", "2s"});
  CHECK(h.rc == 1);
  CHECK(json::parse(h.out)["findings"][0]["code"] == "UNREACHABLE_MEMBER");

  // A voter whose etcd stopped: the error, and no certificate blamed.
  c.kubectl({"annotate", "etcdmembers.etcd-operator.cozystack.io", ms[0],
             "etcd-operator.cozystack.io/headless-service-name-"});
  REQUIRE(c.tool({"check"}).rc == 0);
  c.act("stop", ms[2]);
  r = c.tool({"check"}, {"-o", "json", "--dial-timeout", "2s", "--command-timeout", "2s"});
  CHECK(r.rc == 1);
  doc = parse(r);
  REQUIRE(doc["findings"].size() == 1);
  CHECK(doc["findings"][0]["code"] == "UNREACHABLE_MEMBER");
  CHECK(doc["findings"][0]["member"] == ms[2]);
  CHECK(doc["findings"][0]["message"].get<std::string>().find("certs") == std::string::npos);
  MESSAGE("stopped voter: " << doc["findings"][0]["message"].get<std::string>());
}
