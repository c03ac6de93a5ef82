// How a legacy client Service is reached from outside the ClusterIP network
// (a load balancer, node ports, external IPs): replacing such a Service
// releases an address applications may use, so the plan says so
// (docs/adoption-verdicts.md: B20, W21, N14). Pure; read from the object.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace migrate {

struct ServiceExposure {
  std::string type = "ClusterIP";       // spec.type
  std::string load_balancer_class;      // spec.loadBalancerClass
  std::vector<std::string> addresses;   // spec.externalIPs, spec.loadBalancerIP, status.loadBalancer.ingress
  std::vector<std::string> ports;       // "client 2379/TCP", "admin 8080/TCP node port 31234"

  // Reached from outside: any type but ClusterIP, or an external address.
  bool external() const;
  // `a LoadBalancer Service (loadBalancerClass c; external address a; ports p, q)`.
  std::string describe() const;
};

ServiceExposure service_exposure(const nlohmann::json& service);

}  // namespace migrate
