#include "migrate/service_exposure.h"

#include <doctest/doctest.h>

using json = nlohmann::json;

TEST_CASE("a plain ClusterIP Service is not external") {
  json svc = json::parse(R"({"spec": {"type": "ClusterIP", "clusterIP": "10.0.0.7",
      "ports": [{"name": "client", "port": 2379, "protocol": "TCP"}]}})");
  auto e = migrate::service_exposure(svc);
  CHECK_FALSE(e.external());
  CHECK(e.describe() == "a ClusterIP Service (port client 2379/TCP)");
  CHECK_FALSE(migrate::service_exposure(json::parse(R"({"spec": {}})")).external());  // type defaults to ClusterIP
}

TEST_CASE("a LoadBalancer with a class, an extra port and an address") {
  json svc = json::parse(R"({"spec": {"type": "LoadBalancer", "loadBalancerClass": "example.com/lb",
      "ports": [{"name": "client", "port": 2379, "protocol": "TCP", "nodePort": 31001},
                {"name": "admin", "port": 8080, "nodePort": 31002}]},
      "status": {"loadBalancer": {"ingress": [{"ip": "203.0.113.7"}, {"hostname": "etcd.example.com"}]}}})");
  auto e = migrate::service_exposure(svc);
  CHECK(e.external());
  CHECK(e.describe() ==
        "a LoadBalancer Service (loadBalancerClass example.com/lb; external addresses 203.0.113.7, etcd.example.com; "
        "ports client 2379/TCP node port 31001, admin 8080/TCP node port 31002)");
}

TEST_CASE("a LoadBalancer still waiting for its address says so") {
  auto e = migrate::service_exposure(json::parse(R"({"spec": {"type": "LoadBalancer"}})"));
  CHECK(e.external());
  CHECK(e.describe() == "a LoadBalancer Service (no external address assigned yet)");
}

TEST_CASE("NodePort, externalIPs on a ClusterIP, loadBalancerIP and ExternalName are external") {
  auto np = migrate::service_exposure(json::parse(R"({"spec": {"type": "NodePort",
      "ports": [{"port": 2379, "nodePort": 30079}]}})"));
  CHECK(np.external());
  CHECK(np.describe() == "a NodePort Service (port 2379/TCP node port 30079)");
  auto ips = migrate::service_exposure(json::parse(R"({"spec": {"type": "ClusterIP",
      "externalIPs": ["198.51.100.1", "198.51.100.1", "198.51.100.2"], "ports": [{"port": 2379, "nodePort": 1}]}})"));
  CHECK(ips.external());
  CHECK(ips.addresses == std::vector<std::string>{"198.51.100.1", "198.51.100.2"});
  CHECK(ips.ports == std::vector<std::string>{"2379/TCP"});  // no node port on a ClusterIP Service
  CHECK(migrate::service_exposure(json::parse(R"({"spec": {"type": "LoadBalancer", "loadBalancerIP": "192.0.2.9"}})"))
            .addresses == std::vector<std::string>{"192.0.2.9"});
  auto en = migrate::service_exposure(json::parse(R"({"spec": {"type": "ExternalName", "externalName": "db.example"}})"));
  CHECK(en.external());
  CHECK(en.describe() == "an ExternalName Service (external address db.example)");
}
