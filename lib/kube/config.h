// The resolved connection settings of one run ("rest config"), from the
// kubeconfig files as kubectl picks them (--kubeconfig, else KUBECONFIG, else
// ~/.kube/config), or from the Pod's service account when none is found.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "kube/kubeconfig.h"

namespace kube {

struct ConfigOptions {
  std::string kubeconfig;  // --kubeconfig: exactly one file, which must exist
  std::string context;     // --context
  std::string ns;          // -n/--namespace

  // The environment, read from the process when unset (tests set them).
  std::optional<std::string> kubeconfig_env;  // KUBECONFIG
  std::optional<std::string> home;            // HOME
  std::optional<std::string> service_host;    // KUBERNETES_SERVICE_HOST
  std::optional<std::string> service_port;    // KUBERNETES_SERVICE_PORT
  std::string service_account_dir = "/var/run/secrets/kubernetes.io/serviceaccount";
};

struct RestConfig {
  std::string server;  // scheme://host[:port][/path prefix], no trailing '/'
  std::string ns = "default";
  bool ns_from_flag_or_context = false;  // false: the "default" fallback
  std::string context;  // the context's name, or "in-cluster"
  std::string user;     // the user entry's name (never a credential)

  // TLS
  std::string ca_file;
  std::string ca_pem;
  std::string tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string proxy_url;
  std::string cert_file;
  std::string cert_pem;
  std::string key_file;
  std::string key_pem;

  // Bearer token: token_file (re-read when it changes) wins over token.
  std::string token;
  std::string token_file;
  std::optional<ExecConfig> exec;

  // Things the program should tell the user (e.g. TLS verification off).
  std::vector<std::string> warnings;
};

// Picks the files, merges them, resolves the context; falls back to the
// in-cluster config when no kubeconfig file exists and the service
// variables are set.
base::Result<RestConfig> load_config(const ConfigOptions& options);

// The context (options.context, else current-context) of a merged kubeconfig.
base::Result<RestConfig> config_from_kubeconfig(const Kubeconfig& kc, const ConfigOptions& options);

// From the service account files and KUBERNETES_SERVICE_HOST/_PORT.
base::Result<RestConfig> in_cluster_config(const ConfigOptions& options);

}  // namespace kube
