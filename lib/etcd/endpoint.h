// A client URL as users and MemberList give it, and the gRPC target it
// becomes.
#pragma once

#include <string>

#include "base/result.h"

namespace etcd {

struct Endpoint {
  std::string url;     // as given
  std::string target;  // "host:port" for gRPC
  bool secure = false; // https
};

// "https://h:2379" / "http://h:2379" / "h:2379" (secure when default_tls);
// the port defaults to 2379; a path other than "/" is refused.
base::Result<Endpoint> parse_endpoint(const std::string& url, bool default_tls);

// The gRPC channel target for "host:port": an IP address literal goes
// straight to the address ("ipv4:" / "ipv6:"), a name through "dns:///".
// gRPC's DNS resolver (c-ares) costs a process milliseconds even for a
// literal: `member list` on 3 TLS members 32.7 -> 29.3 ms (etcdctl 21.9).
std::string grpc_target(const std::string& host_port);

}  // namespace etcd
