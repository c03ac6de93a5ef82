// A legacy client Service reached from outside and kept by the adoption
// (N14) meets the real operator: under its own name the operator leaves it
// alone; named <c>-client, the operator's own client Service name, the
// operator takes it over and sets only its selector and "client" port. In
// both cases type, load-balancer class, extra ports and the external address
// stay, the Service stays owned by the EtcdCluster (collected with it), and
// the operator reports the cluster converged with nothing restarted.
#include <doctest/doctest.h>

#include <thread>

#include "../migrate/adopt_checks.h"
#include "operator_e2e.h"

using json = nlohmann::json;

namespace {

json service(const std::string& ns, const std::string& name) { return e2e::get_json({"-n", ns, "service", name}); }

std::vector<std::string> lb_args(const std::string& name, const std::string& address) {
  return {"--version", "3.5", "--client-service", name, "--client-service-type", "LoadBalancer",
          "--client-service-class", "example.com/lb", "--client-service-port", "admin=8080",
          "--client-service-ingress", address};
}

void check_kept(const json& before, const json& now, const std::string& cluster_uid) {
  CHECK(now["metadata"]["uid"] == before["metadata"]["uid"]);
  CHECK(now["spec"]["type"] == "LoadBalancer");
  CHECK(now["spec"]["loadBalancerClass"] == before["spec"]["loadBalancerClass"]);
  CHECK(now["spec"]["clusterIP"] == before["spec"]["clusterIP"]);
  CHECK(now["status"] == before["status"]);  // the external address
  bool admin = false;
  for (const auto& p : now["spec"]["ports"]) admin = admin || (p["name"] == "admin" && p["port"] == 8080);
  CHECK(admin);
  REQUIRE(now["metadata"]["ownerReferences"].size() == 1);
  CHECK(now["metadata"]["ownerReferences"][0]["uid"] == cluster_uid);
  CHECK(now["metadata"]["ownerReferences"][0].value("controller", false) == false);
}

}  // namespace

TEST_CASE("the real operator accepts a kept LoadBalancer client Service, under its own name and as <c>-client") {
  e2e::Namespace a("e2e-op-lb");
  e2e::Namespace b("e2e-op-lbc");
  e2e::LegacyFixture own(a.name(), "etcd", lb_args("etcd-lb", "203.0.113.21"));
  auto args = lb_args("etcd-client", "203.0.113.22");
  args.insert(args.end(), {"--operator-namespace", a.name() + "-op"});  // one operator for both
  e2e::LegacyFixture named(b.name(), "etcd", args);
  e2e::Operator op(own.new_controller(), a.name() + "," + b.name(), 0);

  std::map<std::string, e2e::Before> before;
  std::map<std::string, json> kept;
  for (const e2e::LegacyFixture* f : {&own, &named}) {
    const std::string svc = f == &own ? "etcd-lb" : "etcd-client";
    int rc = -1;
    json plan = e2e::cluster_plan(e2e::adopt_plan(*f, {"--skip-backup"}, rc), f->ns(), "etcd");
    CHECK(rc == 0);
    CHECK(e2e::has_verdict(plan, "N14"));
    before[f->ns()] = e2e::record(*f);
    auto r = e2e::apply(*f, {"--skip-backup"});
    INFO("adopt " << f->ns() << ": " << r.out << r.err);
    REQUIRE(r.rc == 0);
    kept[f->ns()] = service(f->ns(), svc);
  }

  op.scale(1);
  op.wait_leading();
  for (const e2e::LegacyFixture* f : {&own, &named}) {
    e2e::wait_until([&] { return e2e::converged(f->ns(), "etcd"); }, std::chrono::seconds(180),
                    "the operator to report " + f->ns() + "/etcd converged");
  }

  // Under its own name: not the operator's business, not touched at all.
  {
    const std::string ns = a.name();
    json cluster = e2e::get_json({"-n", ns, "etcdclusters.etcd-operator.cozystack.io", "etcd"});
    json now = service(ns, "etcd-lb");
    check_kept(kept[ns], now, cluster["metadata"]["uid"]);
    CHECK(now["metadata"]["resourceVersion"] == kept[ns]["metadata"]["resourceVersion"]);
    CHECK(now["spec"]["selector"] == kept[ns]["spec"]["selector"]);
    // The operator's own client Service is another one.
    json client = service(ns, "etcd-client");
    CHECK(client["metadata"]["ownerReferences"][0]["controller"] == true);
  }
  // Named <c>-client: the operator's selector and client port; the rest as it was.
  {
    const std::string ns = b.name();
    json cluster = e2e::get_json({"-n", ns, "etcdclusters.etcd-operator.cozystack.io", "etcd"});
    json now = service(ns, "etcd-client");
    check_kept(kept[ns], now, cluster["metadata"]["uid"]);
    CHECK(now["spec"]["selector"] == json({{"etcd-operator.cozystack.io/cluster", "etcd"}}));
    bool client = false;
    for (const auto& p : now["spec"]["ports"]) client = client || (p["name"] == "client" && p["port"] == 2379);
    CHECK(client);
  }

  // Nothing restarted, and then nothing more written.
  for (const e2e::LegacyFixture* f : {&own, &named}) {
    for (const auto& [name, uid] : before[f->ns()].pod_uids) {
      json pod = e2e::get_json({"-n", f->ns(), "pod", name});
      CHECK(pod["metadata"]["uid"] == uid);
    }
  }
  const std::vector<std::string> kinds = {"pods", "services", "etcdclusters.etcd-operator.cozystack.io",
                                          "etcdmembers.etcd-operator.cozystack.io"};
  const auto va = e2e::versions(a.name(), kinds), vb = e2e::versions(b.name(), kinds);
  std::this_thread::sleep_for(std::chrono::seconds(30));
  CHECK(e2e::versions(a.name(), kinds) == va);
  CHECK(e2e::versions(b.name(), kinds) == vb);
  for (const e2e::LegacyFixture* f : {&own, &named}) {
    auto v = e2e::etcd_migrate({"verify", "-n", f->ns(), "etcd"});
    CHECK_MESSAGE(v.rc == 0, "verify " << f->ns() << ": " << v.out << v.err);
  }
}
