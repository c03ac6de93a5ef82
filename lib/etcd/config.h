// How to reach an etcd cluster: endpoints, TLS material, credentials and
// timeouts. Plain values; built by the caller (from flags or Kubernetes
// Secrets: docs/rules.md#tls-material, docs/rules.md#authentication) and handed to Client::create.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"

namespace etcd {

struct TlsConfig {
  // Files, as given by --cacert/--cert/--key.
  std::string ca_file;
  std::string cert_file;
  std::string key_file;
  // In-memory PEM, as read from a Secret's ca.crt/tls.crt/tls.key; each one
  // wins over the matching file.
  std::string ca_pem;
  std::string cert_pem;
  std::string key_pem;
  // Verify (and send as SNI) this name instead of the endpoint's host: a pod
  // reached by IP or through a port-forward is certified for its DNS name.
  std::string server_name;
  // The same per endpoint (keyed by the URL as given in Config::endpoints or
  // to a per-member call); wins over server_name. Members dialled by pod IP
  // are each certified for their own DNS name (docs/rules.md#connect-modes).
  std::map<std::string, std::string> server_names;
  // Only with --insecure-skip-tls-verify; verification is on by default.
  bool insecure_skip_verify = false;
};

struct Config {
  // "https://host:2379", "http://host:2379" or "host:2379" (https when TLS
  // material is given, else http).
  std::vector<std::string> endpoints;
  TlsConfig tls;
  // Empty user: no token (anonymous, or the client certificate's CN).
  std::string user;
  std::string password;
  std::chrono::milliseconds dial_timeout{5000};
  // Default deadline of one call when the caller gives none.
  std::chrono::milliseconds call_timeout{5000};
  // How to reach an endpoint when its host cannot be dialled from here
  // (--connect port-forward): the endpoint URL as given -> "host:port" to
  // dial instead. TLS still verifies the endpoint's server name. Called
  // once per endpoint and client, when its channel is first needed; an
  // error fails that call. Empty: dial the URL's host.
  std::function<base::Result<std::string>(const std::string& url)> dial;
};

}  // namespace etcd
