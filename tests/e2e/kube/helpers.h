// Shared by the kube e2e tests: a client as the environment's admin, a
// client from a hand-written kubeconfig, and service accounts with tokens.
#pragma once

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "kube/client.h"
#include "kube/config.h"
#include "testenv.h"

namespace kube_e2e {

inline std::unique_ptr<kube::Client> client_from(const kube::ConfigOptions& o, kube::ClientOptions co = {}) {
  auto cfg = kube::load_config(o);
  REQUIRE_MESSAGE(cfg.ok(), (cfg.ok() ? "" : cfg.error().one_line()));
  auto c = kube::Client::create(*cfg, co);
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().one_line()));
  return std::move(*c);
}

inline std::unique_ptr<kube::Client> admin(const std::string& ns = {}, kube::ClientOptions co = {}) {
  kube::ConfigOptions o;
  o.kubeconfig = e2e::var("KUBECONFIG");
  o.ns = ns;
  return client_from(o, co);
}

inline std::unique_ptr<kube::Client> client_for_kubeconfig(const std::string& path) {
  kube::ConfigOptions o;
  o.kubeconfig = path;
  return client_from(o);
}

inline void write_file(const std::string& path, const std::string& text, int mode = 0600) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  f.close();
  REQUIRE(::chmod(path.c_str(), static_cast<mode_t>(mode)) == 0);
}

inline std::string temp_dir(const std::string& prefix) {
  std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
  char* d = ::mkdtemp(tmpl.data());
  REQUIRE(d != nullptr);
  return d;
}

// A kubeconfig whose cluster is the environment's apiserver (CA file) and
// whose user is `user_yaml` (indented under "user:").
inline std::string kubeconfig_with_user(const std::string& dir, const std::string& user_yaml,
                                        const std::string& server = {}) {
  std::string path = dir + "/kubeconfig";
  write_file(path, "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
                   "clusters:\n- name: c\n  cluster:\n    server: " +
                       (server.empty() ? e2e::var("TESTENV_APISERVER") : server) +
                       "\n    certificate-authority: " + e2e::var("TESTENV_CA") +
                       "\ncontexts:\n- name: t\n  context: {cluster: c, user: u}\n"
                       "users:\n- name: u\n  user:\n" +
                       user_yaml);
  return path;
}

// A ServiceAccount in ns with a Role of `verbs` on configmaps; returns a
// token minted by TokenRequest (kubectl create token). (The built-in "view"
// ClusterRole is empty here: its aggregation controller does not run.)
inline std::string service_account_token(const std::string& ns, const std::string& sa,
                                         const std::string& verbs = "get,list,watch",
                                         const std::string& duration = "1h") {
  e2e::kubectl({"-n", ns, "create", "serviceaccount", sa});
  e2e::kubectl({"-n", ns, "create", "role", sa, "--verb", verbs, "--resource", "configmaps"});
  e2e::kubectl({"-n", ns, "create", "rolebinding", sa, "--role", sa, "--serviceaccount", ns + ":" + sa});
  std::string t = e2e::kubectl({"-n", ns, "create", "token", sa, "--duration", duration});
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  REQUIRE(!t.empty());
  return t;
}

inline nlohmann::json configmap(const std::string& name, const nlohmann::json& data = nlohmann::json::object()) {
  return {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", name}}}, {"data", data}};
}

}  // namespace kube_e2e
