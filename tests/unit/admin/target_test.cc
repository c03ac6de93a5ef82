#include "admin/target.h"

#include <doctest/doctest.h>

#include <map>

#include "fixtures.h"
#include "kube/local_forward.h"

using namespace admin_test;

namespace {

admin::Getenv env_of(std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace

TEST_CASE("--connect auto: direct inside a cluster, port-forward outside (docs/rules.md#connect-modes)") {
  auto outside = env_of({});
  auto inside = env_of({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}});
  CHECK(*admin::parse_connect("auto", outside) == admin::ConnectMode::PortForward);
  CHECK(*admin::parse_connect("auto", inside) == admin::ConnectMode::Direct);
  CHECK(*admin::parse_connect("direct", outside) == admin::ConnectMode::Direct);
  CHECK(*admin::parse_connect("port-forward", inside) == admin::ConnectMode::PortForward);
  auto bad = admin::parse_connect("tunnel", outside);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().kind == base::ErrorKind::Usage);
}

TEST_CASE("normalize settles --connect: a cluster target forwards, --endpoints are dialled as given") {
  admin::TargetOptions o;
  o.cluster = "c";
  auto n = admin::normalize(o, env_of({}));
  REQUIRE(n.ok());
  CHECK(n->connect == "port-forward");
  o.connect = "direct";
  CHECK(admin::normalize(o, env_of({}))->connect == "direct");

  admin::TargetOptions e;
  e.endpoints = {"https://127.0.0.1:2379"};
  CHECK(admin::normalize(e, env_of({}))->connect == "direct");
  e.connect = "port-forward";
  auto refused = admin::normalize(e, env_of({}));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().kind == base::ErrorKind::Usage);
}

TEST_CASE("no target at all is a usage error") {
  auto r = admin::normalize({}, env_of({}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::Usage);
}

TEST_CASE("--endpoints with -c is a usage error") {
  admin::TargetOptions o;
  o.cluster = "c";
  o.endpoints = {"http://x:2379"};
  CHECK(admin::normalize(o, env_of({})).error().kind == base::ErrorKind::Usage);
}

TEST_CASE("ETCDCTL_* fill what flags leave empty, only without a cluster") {
  auto env = env_of({{"ETCDCTL_ENDPOINTS", "https://a:2379,https://b:2379"},
                     {"ETCDCTL_CACERT", "/ca"},
                     {"ETCDCTL_CERT", "/crt"},
                     {"ETCDCTL_KEY", "/key"},
                     {"ETCDCTL_USER", "root"},
                     {"ETCDCTL_PASSWORD", "pw"}});
  admin::TargetOptions o;
  o.cacert = "/flag-ca";
  auto r = admin::normalize(o, env);
  REQUIRE(r.ok());
  CHECK(r->endpoints == std::vector<std::string>{"https://a:2379", "https://b:2379"});
  CHECK(r->cacert == "/flag-ca");
  CHECK(r->cert == "/crt");
  CHECK(r->user == "root:pw");

  admin::TargetOptions c;
  c.cluster = "c";
  auto rc = admin::normalize(c, env);
  REQUIRE(rc.ok());
  CHECK(rc->endpoints.empty());
  CHECK(rc->cacert.empty());
}

TEST_CASE("--user without a password and no ETCDCTL_PASSWORD is a usage error without echoing anything") {
  admin::TargetOptions o;
  o.endpoints = {"https://a:2379"};
  o.user = "root";
  auto r = admin::normalize(o, env_of({}));
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::Usage);
}

TEST_CASE("members are dialled at their pod IP and verified as their member DNS name") {
  auto c = cluster();
  auto ms = json::array({member("c-aaaaa", "0000000000000001"), member("c-bbbbb", "0000000000000002", false)});
  auto ps = json::array({pod("c-aaaaa", "127.1.0.1"), pod("c-bbbbb", "127.1.0.2", false)});
  auto t = admin::member_targets(c, ms, ps);
  REQUIRE(t.size() == 2);
  CHECK(t[0].endpoint == "https://127.1.0.1:2379");
  CHECK(t[0].server_name == "c-aaaaa.c.ns.svc");
  CHECK(t[0].id == 1);
  CHECK(t[0].voter);
  CHECK(t[0].pod_ready);
  CHECK_FALSE(t[1].voter);
  // Cluster calls go to ready voters only (never a learner, docs/rules.md#connect-modes).
  CHECK(admin::cluster_endpoints(t) == std::vector<std::string>{"https://127.1.0.1:2379"});
}

TEST_CASE("plaintext clusters are dialled over http; the headless-service annotation changes the name") {
  auto c = cluster(false);
  auto m = member("c-aaaaa", "");
  m["metadata"]["annotations"] = {{"etcd-operator.cozystack.io/headless-service-name", "c-headless"}};
  auto t = admin::member_targets(c, json::array({m}), json::array({pod("c-aaaaa", "10.1.2.3")}));
  CHECK(t[0].endpoint == "http://10.1.2.3:2379");
  CHECK(t[0].server_name == "c-aaaaa.c-headless.ns.svc");
  CHECK(admin::peer_url(c, m) == "http://c-aaaaa.c-headless.ns.svc:2380");
}

TEST_CASE("members that cannot be dialled say why") {
  auto c = cluster();
  auto pending = member("c-p", "");
  pending["spec"]["initialCluster"] = "";
  auto dormant = member("c-d", "");
  dormant["spec"]["dormant"] = true;
  auto nopod = member("c-n", "");
  auto noip = member("c-i", "");
  auto t = admin::member_targets(c, json::array({pending, dormant, nopod, noip}),
                                 json::array({pod("c-i", "")}));
  CHECK(t[0].problem == "member is pending (no Pod yet)");
  CHECK(t[1].problem == "member is dormant (cluster paused)");
  CHECK(t[2].problem == "pod \"c-n\" does not exist");
  CHECK(t[3].problem == "pod \"c-i\" has no IP");
  for (const auto& m : t) CHECK(m.endpoint.empty());
  CHECK(admin::cluster_endpoints(t).empty());
}

TEST_CASE("without a ready voter, cluster calls go to every dialable member") {
  auto c = cluster();
  auto t = admin::member_targets(c, json::array({member("a", "", false), member("b", "", true)}),
                                 json::array({pod("a", "10.0.0.1"), pod("b", "10.0.0.2", true, false)}));
  CHECK(admin::cluster_endpoints(t) == std::vector<std::string>{"https://10.0.0.1:2379", "https://10.0.0.2:2379"});
}

TEST_CASE("member_config dials one member, a Pod replaced since resolution included") {
  admin::Target t;
  t.ns = "ns";
  t.config.endpoints = {"https://127.1.0.1:2379", "https://127.1.0.2:2379"};
  t.config.tls.server_names["https://127.1.0.1:2379"] = "c-aaaaa.c.ns.svc";
  t.config.call_timeout = std::chrono::milliseconds(1234);
  // The operator created c-aaaaa's Pod again: a new IP.
  auto m = admin::member_targets(cluster(), json::array({member("c-aaaaa", "0000000000000001")}),
                                 json::array({pod("c-aaaaa", "127.1.0.9")}))
               .front();

  SUBCASE("direct: the new URL, verified as the member's DNS name") {
    auto cfg = admin::member_config(t, m);
    CHECK(cfg.endpoints == std::vector<std::string>{"https://127.1.0.9:2379"});
    CHECK(cfg.tls.server_names.at("https://127.1.0.9:2379") == "c-aaaaa.c.ns.svc");
    CHECK(cfg.call_timeout == std::chrono::milliseconds(1234));
    CHECK_FALSE(cfg.dial);
  }
  SUBCASE("--tls-server-name wins over the member DNS name") {
    t.config.tls.server_name = "etcd.example";
    CHECK(admin::member_config(t, m).tls.server_names.count("https://127.1.0.9:2379") == 0);
  }
  SUBCASE("port-forward: the new URL goes to the Pod by name; other URLs are not guessed") {
    t.forwards = std::make_shared<kube::PortForwards>(nullptr);
    // The session's dialer knew the old URL only.
    t.config.dial = kube::PortForwards::dialer(t.forwards, "ns", {{"https://127.1.0.1:2379", "c-aaaaa"}}, 2379);
    REQUIRE_FALSE(t.config.dial("https://127.1.0.9:2379"));
    auto cfg = admin::member_config(t, m);
    REQUIRE(cfg.dial);
    auto other = cfg.dial("https://127.1.0.1:2379");
    REQUIRE_FALSE(other);
    CHECK(other.error().kind == base::ErrorKind::CannotConnect);
  }
}
