#include "etcd/endpoint.h"

#include <arpa/inet.h>

#include <algorithm>

namespace etcd {

base::Result<Endpoint> parse_endpoint(const std::string& url, bool default_tls) {
  auto bad = [&](const std::string& why) {
    return base::make_error(base::ErrorKind::Usage, "invalid etcd endpoint: " + why, "endpoint \"" + url + "\"",
                           "give a client URL such as https://10.0.0.4:2379");
  };
  Endpoint e;
  e.url = url;
  std::string rest = url;
  e.secure = default_tls;
  if (auto p = rest.find("://"); p != std::string::npos) {
    std::string scheme = rest.substr(0, p);
    if (scheme == "https" || scheme == "unixs") {
      e.secure = true;
    } else if (scheme == "http" || scheme == "unix") {
      e.secure = false;
    } else {
      return bad("unknown scheme \"" + scheme + "\"");
    }
    rest = rest.substr(p + 3);
  } else if (rest.find('/') != std::string::npos) {
    // "http//host", "https:/host": a mistyped scheme, not a path.
    return bad("no \"://\" after the scheme");
  }
  if (auto slash = rest.find('/'); slash != std::string::npos) {
    if (rest.substr(slash) != "/") return bad("a path is not allowed");
    rest.resize(slash);
  }
  if (rest.empty()) return bad("no host");
  // "[v6]:port", "host:port", "host", "[v6]"
  bool has_port;
  if (rest.front() == '[') {
    auto close = rest.find(']');
    if (close == std::string::npos) return bad("unclosed [");
    has_port = close + 1 < rest.size() && rest[close + 1] == ':';
  } else {
    const auto colons = std::count(rest.begin(), rest.end(), ':');
    if (colons > 1) return bad("an IPv6 address goes in brackets, as [::1]:2379");
    has_port = colons == 1;
  }
  if (has_port) {
    auto colon = rest.rfind(':');
    std::string port = rest.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
      return bad("bad port \"" + port + "\"");
    if (const int n = std::stoi(port); n < 1 || n > 65535)
      return bad("port " + port + " is out of range 1-65535");
  } else {
    rest += ":2379";
  }
  e.target = rest;
  return e;
}

std::string grpc_target(const std::string& host_port) {
  auto colon = host_port.rfind(':');
  if (colon != std::string::npos) {
    std::string host = host_port.substr(0, colon);
    unsigned char addr[16];
    if (host.size() > 2 && host.front() == '[' && host.back() == ']' &&
        ::inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), addr) == 1) {
      return "ipv6:" + host_port;
    }
    if (::inet_pton(AF_INET, host.c_str(), addr) == 1) return "ipv4:" + host_port;
  }
  return "dns:///" + host_port;
}

}  // namespace etcd
