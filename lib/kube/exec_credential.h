// client.authentication.k8s.io exec credential plugins (v1 and v1beta1): the
// plugin is run with KUBERNETES_EXEC_INFO, its ExecCredential parsed, and the
// credential kept until its expirationTimestamp (or a 401) asks for a re-run.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "kube/kubeconfig.h"

namespace kube {

struct ExecCredential {
  std::string token;
  std::string client_certificate_pem;
  std::string client_key_pem;
  std::optional<std::chrono::system_clock::time_point> expiration;
};

// What the plugin may learn about the cluster (provideClusterInfo).
struct ExecClusterInfo {
  std::string server;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string ca_pem;
};

// Parses the plugin's stdout; its apiVersion must be the configured one.
base::Result<ExecCredential> parse_exec_credential(std::string_view json, std::string_view api_version);

// The KUBERNETES_EXEC_INFO value given to the plugin.
std::string exec_info_json(const ExecConfig& config, const ExecClusterInfo& cluster, bool interactive);

// Runs the plugin once. `stdin_is_terminal` decides interactiveMode.
base::Result<ExecCredential> run_exec_plugin(const ExecConfig& config, const ExecClusterInfo& cluster,
                                            bool stdin_is_terminal);

// A plugin's credential shared by all requests of a client, re-run when it
// expires or after the server refused it. Thread-safe.
class ExecProvider {
 public:
  ExecProvider(ExecConfig config, ExecClusterInfo cluster);
  base::Result<ExecCredential> get();
  void invalidate();
  int runs() const;  // how many times the plugin ran

 private:
  ExecConfig config_;
  ExecClusterInfo cluster_;
  mutable std::mutex mu_;
  std::optional<ExecCredential> cached_;
  int runs_ = 0;
};

}  // namespace kube
