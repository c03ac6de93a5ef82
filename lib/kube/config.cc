#include "kube/config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/text.h"

namespace kube {

namespace {

using base::ErrorKind;

std::optional<std::string> getenv_opt(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

std::string env_or(const std::optional<std::string>& override_value, const char* name) {
  if (override_value) return *override_value;
  return getenv_opt(name).value_or("");
}

bool exists(const std::string& p) {
  std::error_code ec;
  return !p.empty() && std::filesystem::exists(p, ec);
}

}  // namespace

base::Result<RestConfig> config_from_kubeconfig(const Kubeconfig& kc, const ConfigOptions& o) {
  std::string files = base::join(kc.files, ":");
  std::string name = o.context.empty() ? kc.current_context : o.context;
  if (name.empty()) {
    return base::make_error(ErrorKind::Failed, "no context: current-context is not set and --context was not given",
                           "kubeconfig \"" + files + "\"",
                           "choose one with --context or 'kubectl config use-context'");
  }
  auto ctx = kc.contexts.find(name);
  if (ctx == kc.contexts.end()) {
    return base::make_error(ErrorKind::NotFound, "not found in kubeconfig \"" + files + "\"",
                           "context \"" + name + "\"", "list them with 'kubectl config get-contexts'");
  }
  auto cl = kc.clusters.find(ctx->second.cluster);
  if (ctx->second.cluster.empty() || cl == kc.clusters.end()) {
    return base::make_error(ErrorKind::Failed,
                           "names cluster \"" + ctx->second.cluster + "\", which is not in kubeconfig \"" +
                               files + "\"",
                           "context \"" + name + "\"");
  }
  const KubeUser* user = nullptr;
  if (!ctx->second.user.empty()) {
    auto u = kc.users.find(ctx->second.user);
    if (u == kc.users.end()) {
      return base::make_error(ErrorKind::Failed,
                             "names user \"" + ctx->second.user + "\", which is not in kubeconfig \"" +
                                 files + "\"",
                             "context \"" + name + "\"");
    }
    user = &u->second;
  }
  const KubeCluster& c = cl->second;
  if (c.server.empty()) {
    return base::make_error(ErrorKind::Failed, "has no server", "cluster \"" + ctx->second.cluster + "\"");
  }
  RestConfig rc;
  rc.context = name;
  rc.user = ctx->second.user;
  rc.server = c.server;
  while (rc.server.size() > 1 && rc.server.back() == '/') rc.server.pop_back();
  if (rc.server.find("://") == std::string::npos) rc.server = "https://" + rc.server;
  rc.ca_file = c.certificate_authority;
  rc.ca_pem = c.certificate_authority_data;
  rc.tls_server_name = c.tls_server_name;
  rc.insecure_skip_tls_verify = c.insecure_skip_tls_verify;
  rc.proxy_url = c.proxy_url;
  if (rc.insecure_skip_tls_verify) {
    if (!rc.ca_file.empty() || !rc.ca_pem.empty()) {
      // kubectl refuses this combination; so do we, rather than guess.
      return base::make_error(ErrorKind::Failed,
                             "sets both insecure-skip-tls-verify and a certificate authority",
                             "cluster \"" + ctx->second.cluster + "\"", "remove one of them");
    }
    rc.warnings.push_back("TLS verification of the Kubernetes API server is OFF (insecure-skip-tls-verify in cluster \"" +
                          ctx->second.cluster + "\"): anyone on the network path can impersonate it");
  }
  if (user != nullptr) {
    std::string who = "user \"" + ctx->second.user + "\"";
    if (!user->username.empty() || user->has_password) {
      return base::make_error(ErrorKind::Failed, "uses basic authentication (username/password), which is not supported",
                             who, "use a client certificate, a token or an exec credential plugin");
    }
    if (!user->auth_provider.empty()) {
      return base::make_error(ErrorKind::Failed,
                             "uses auth-provider \"" + user->auth_provider + "\", which is not supported",
                             who, "use an exec credential plugin (the auth-provider mechanism was removed from kubectl)");
    }
    rc.cert_file = user->client_certificate;
    rc.cert_pem = user->client_certificate_data;
    rc.key_file = user->client_key;
    rc.key_pem = user->client_key_data;
    rc.token = user->token;
    rc.token_file = user->token_file;
    rc.exec = user->exec;
    bool has_cert = !rc.cert_file.empty() || !rc.cert_pem.empty();
    bool has_key = !rc.key_file.empty() || !rc.key_pem.empty();
    if (has_cert != has_key) {
      return base::make_error(ErrorKind::Failed, has_cert ? "has a client certificate but no client key"
                                                         : "has a client key but no client certificate",
                             who);
    }
  }
  if (!o.ns.empty()) {
    rc.ns = o.ns;
    rc.ns_from_flag_or_context = true;
  } else if (!ctx->second.ns.empty()) {
    rc.ns = ctx->second.ns;
    rc.ns_from_flag_or_context = true;
  }
  return rc;
}

base::Result<RestConfig> in_cluster_config(const ConfigOptions& o) {
  std::string host = env_or(o.service_host, "KUBERNETES_SERVICE_HOST");
  std::string port = env_or(o.service_port, "KUBERNETES_SERVICE_PORT");
  if (host.empty() || port.empty()) {
    return base::make_error(ErrorKind::Failed, "not running in a Pod: KUBERNETES_SERVICE_HOST and _PORT are not set");
  }
  std::string token_file = o.service_account_dir + "/token";
  if (!exists(token_file)) {
    return base::make_error(ErrorKind::Failed, "in-cluster config: no service account token at " + token_file,
                           {}, "mount the service account token, or give --kubeconfig");
  }
  RestConfig rc;
  rc.context = "in-cluster";
  bool ipv6 = host.find(':') != std::string::npos;
  rc.server = "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
  rc.token_file = token_file;
  if (exists(o.service_account_dir + "/ca.crt")) rc.ca_file = o.service_account_dir + "/ca.crt";
  if (!o.ns.empty()) {
    rc.ns = o.ns;
    rc.ns_from_flag_or_context = true;
  } else if (std::ifstream nf(o.service_account_dir + "/namespace"); nf) {
    std::stringstream ss;
    ss << nf.rdbuf();
    std::string ns = base::trim(ss.str());
    if (!ns.empty()) {
      rc.ns = ns;
      rc.ns_from_flag_or_context = true;
    }
  }
  return rc;
}

base::Result<RestConfig> load_config(const ConfigOptions& o) {
  std::vector<std::string> paths;
  bool skip_missing = true;
  bool from_env = false;
  if (!o.kubeconfig.empty()) {
    paths.push_back(o.kubeconfig);
    skip_missing = false;  // a file the user named must exist
  } else {
    std::string env = env_or(o.kubeconfig_env, "KUBECONFIG");
    paths = split_kubeconfig_env(env);
    from_env = !paths.empty();
    if (paths.empty()) {
      std::string home = env_or(o.home, "HOME");
      if (!home.empty()) paths.push_back(home + "/.kube/config");
    }
  }
  bool any = !skip_missing;
  for (const auto& p : paths) any = any || exists(p);
  if (!any) {
    std::string host = env_or(o.service_host, "KUBERNETES_SERVICE_HOST");
    if (!host.empty()) return in_cluster_config(o);
    // As kubectl: KUBECONFIG's missing entries are skipped, but when it
    // names no file that exists, that is the error (6, as for --kubeconfig).
    if (from_env) return missing_kubeconfig(paths);
    std::string where = paths.empty() ? std::string("(no KUBECONFIG and no HOME)") : base::join(paths, ":");
    return base::make_error(ErrorKind::Failed, "no kubeconfig found at " + where + " and not running in a Pod", {},
                           "give --kubeconfig or set KUBECONFIG");
  }
  auto kc = load_kubeconfig_files(paths, skip_missing);
  if (!kc) return std::move(kc).error();
  return config_from_kubeconfig(*kc, o);
}

}  // namespace kube
