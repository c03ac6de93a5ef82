#include "migrate/service_exposure.h"

#include <algorithm>

#include "base/json_at.h"
#include "base/text.h"
#include "operator/legacy_cluster.h"

namespace migrate {

using json = nlohmann::json;

namespace {

void add_unique(std::vector<std::string>& to, const std::string& s) {
  if (!s.empty() && std::find(to.begin(), to.end(), s) == to.end()) to.push_back(s);
}

}  // namespace

bool ServiceExposure::external() const { return type != "ClusterIP" || !addresses.empty(); }

std::string ServiceExposure::describe() const {
  std::string out = std::string(type.rfind("E", 0) == 0 ? "an " : "a ") + type + " Service";
  std::vector<std::string> parts;
  if (!load_balancer_class.empty()) parts.push_back("loadBalancerClass " + load_balancer_class);
  if (!addresses.empty()) parts.push_back(std::string("external address") + (addresses.size() > 1 ? "es " : " ") + base::join(addresses, ", "));
  if (type == "LoadBalancer" && addresses.empty()) parts.push_back("no external address assigned yet");
  if (!ports.empty()) parts.push_back(std::string("port") + (ports.size() > 1 ? "s " : " ") + base::join(ports, ", "));
  std::string inner;
  for (const auto& p : parts) inner += (inner.empty() ? "" : "; ") + p;
  return inner.empty() ? out : out + " (" + inner + ")";
}

ServiceExposure service_exposure(const json& service) {
  ServiceExposure e;
  std::string type = base::string_at(service, "/spec/type");
  if (!type.empty()) e.type = type;
  e.load_balancer_class = base::string_at(service, "/spec/loadBalancerClass");
  if (type == "ExternalName") add_unique(e.addresses, base::string_at(service, "/spec/externalName"));
  if (const json* ips = base::find_at(service, "/spec/externalIPs"); ips != nullptr && ips->is_array()) {
    for (const auto& ip : *ips) {
      if (ip.is_string()) add_unique(e.addresses, ip.get<std::string>());
    }
  }
  add_unique(e.addresses, base::string_at(service, "/spec/loadBalancerIP"));
  if (const json* ingress = base::find_at(service, "/status/loadBalancer/ingress"); ingress != nullptr && ingress->is_array()) {
    for (const auto& i : *ingress) {
      add_unique(e.addresses, base::string_at(i, "/ip"));
      add_unique(e.addresses, base::string_at(i, "/hostname"));
    }
  }
  if (const json* ports = base::find_at(service, "/spec/ports"); ports != nullptr && ports->is_array()) {
    for (const auto& p : *ports) {
      std::string name = base::string_at(p, "/name");
      std::string text = (name.empty() ? "" : name + " ") + std::to_string(base::int_at(p, "/port")) + "/" +
                         (p.contains("protocol") && p["protocol"].is_string() ? p["protocol"].get<std::string>() : "TCP");
      if (p.contains("nodePort") && p["nodePort"].is_number_integer() && e.type != "ClusterIP") {
        text += " node port " + std::to_string(base::int_at(p, "/nodePort"));
      }
      e.ports.push_back(text);
    }
  }
  return e;
}

}  // namespace migrate
