// Every way of authenticating against the real apiserver, TLS settings, and
// what a user refused by RBAC is told.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

#include "helpers.h"
#include "http/curl_error.h"
#include "kube/base64.h"

using nlohmann::json;
namespace r = kube::resources;

namespace {

std::string read_all(const std::string& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

int count_lines(const std::string& p) {
  std::string s = read_all(p);
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

}  // namespace

TEST_CASE("client certificate and key from files, relative to the kubeconfig's folder") {
  std::string dir = kube_e2e::temp_dir("kube-cert");
  std::filesystem::copy_file(e2e::var("TESTENV_ADMIN_CERT"), dir + "/admin.crt");
  std::filesystem::copy_file(e2e::var("TESTENV_ADMIN_KEY"), dir + "/admin.key");
  std::filesystem::copy_file(e2e::var("TESTENV_CA"), dir + "/ca.crt");
  kube_e2e::write_file(dir + "/kubeconfig",
                       "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster:\n"
                       "    server: " + e2e::var("TESTENV_APISERVER") + "\n    certificate-authority: ca.crt\n"
                       "contexts:\n- name: t\n  context: {cluster: c, user: u, namespace: kube-system}\n"
                       "users:\n- name: u\n  user:\n    client-certificate: admin.crt\n    client-key: admin.key\n");
  auto c = kube_e2e::client_for_kubeconfig(dir + "/kubeconfig");
  CHECK(c->config().ns == "kube-system");
  auto l = c->list(r::namespaces, "");
  REQUIRE_MESSAGE(l.ok(), l.error().one_line());
  std::filesystem::remove_all(dir);
}

TEST_CASE("the environment's kubeconfig: embedded (-data) certificates") {
  auto c = kube_e2e::admin();
  auto l = c->get(r::namespaces, "", "default");
  REQUIRE_MESSAGE(l.ok(), l.error().one_line());
}

TEST_CASE("bearer token, tokenFile re-read when it changes, and 401/403 errors") {
  e2e::Namespace ns("kube-token");
  std::string good = kube_e2e::service_account_token(ns.name(), "viewer");
  std::string dir = kube_e2e::temp_dir("kube-token");

  SUBCASE("token") {
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, "    token: " + good + "\n"));
    auto l = c->list(r::configmaps, ns.name());
    REQUIRE_MESSAGE(l.ok(), l.error().one_line());

    // RBAC: view may not create.
    auto denied = c->create(r::configmaps, ns.name(), kube_e2e::configmap("x"));
    REQUIRE_FALSE(denied.ok());
    CHECK(denied.error().kind == base::ErrorKind::PermissionDenied);
    CHECK(denied.error().status == 403);
    CHECK(denied.error().reason == "Forbidden");
    std::string line = denied.error().one_line();
    MESSAGE(line);
    CHECK(line.find("cannot create configmaps \"x\" in namespace \"" + ns.name() + "\"") == 0);
    CHECK(line.find("system:serviceaccount:" + ns.name() + ":viewer") != std::string::npos);
    CHECK(line.find(good) == std::string::npos);

    kube::Resource ec{"etcd-operator.cozystack.io", "v1alpha2", "etcdclusters", "EtcdCluster", true};
    auto denied_crd = c->patch(ec, ns.name(), "c", kube::PatchType::Merge, json::object());
    REQUIRE_FALSE(denied_crd.ok());
    CHECK(denied_crd.error().one_line().find("cannot patch etcdclusters.etcd-operator.cozystack.io \"c\" in namespace \"" +
                                             ns.name() + "\"") == 0);

    auto can = c->can_i("create", r::configmaps, ns.name());
    REQUIRE(can.ok());
    CHECK_FALSE(can->allowed);
    auto can_list = c->can_i("list", r::configmaps, ns.name());
    REQUIRE(can_list.ok());
    CHECK(can_list->allowed);
  }

  SUBCASE("an invalid token is 401 with a clear message") {
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, "    token: not-a-valid-token\n"));
    auto l = c->list(r::configmaps, ns.name());
    REQUIRE_FALSE(l.ok());
    CHECK(l.error().kind == base::ErrorKind::PermissionDenied);
    CHECK(l.error().status == 401);
    MESSAGE(l.error().one_line());
    CHECK(l.error().one_line().find("unauthorized: cannot list configmaps in namespace") == 0);
    CHECK(l.error().one_line().find("not-a-valid-token") == std::string::npos);
  }

  SUBCASE("tokenFile") {
    std::string tf = dir + "/token";
    kube_e2e::write_file(tf, good + "\n");
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, "    tokenFile: token\n"));
    REQUIRE(c->list(r::configmaps, ns.name()).ok());
    kube_e2e::write_file(tf, "rotated-to-garbage\n");
    auto bad = c->list(r::configmaps, ns.name());
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().status == 401);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    kube_e2e::write_file(tf, good + "\n");
    auto again = c->list(r::configmaps, ns.name());
    REQUIRE_MESSAGE(again.ok(), again.error().one_line());
  }

  SUBCASE("in-cluster: service-account files and KUBERNETES_SERVICE_HOST/PORT") {
    std::string sa = dir + "/sa";
    std::filesystem::create_directories(sa);
    kube_e2e::write_file(sa + "/token", good);
    std::filesystem::copy_file(e2e::var("TESTENV_CA"), sa + "/ca.crt");
    kube_e2e::write_file(sa + "/namespace", ns.name() + "\n");
    std::string api = e2e::var("TESTENV_APISERVER");
    kube::ConfigOptions o;
    o.kubeconfig_env = "";
    o.home = dir + "/nohome";
    o.service_host = "127.0.0.1";
    o.service_port = api.substr(api.rfind(':') + 1);
    o.service_account_dir = sa;
    auto c = kube_e2e::client_from(o);
    CHECK(c->config().context == "in-cluster");
    CHECK(c->config().ns == ns.name());
    auto l = c->list(r::configmaps, c->config().ns);
    REQUIRE_MESSAGE(l.ok(), l.error().one_line());
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("exec credential plugins: v1, v1beta1, expiry and re-exec, re-exec after 401") {
  e2e::Namespace ns("kube-exec");
  std::string good = kube_e2e::service_account_token(ns.name(), "viewer");
  std::string dir = kube_e2e::temp_dir("kube-exec");
  kube_e2e::write_file(dir + "/good-token", good);
  // The plugin logs each run and what KUBERNETES_EXEC_INFO said; PLUGIN_TTL
  // seconds of validity when set; PLUGIN_BAD_FIRST makes its first token bad.
  kube_e2e::write_file(dir + "/plugin.sh", R"SH(#!/bin/sh
set -e
here=$(dirname "$0")
echo "run $KUBERNETES_EXEC_INFO" >>"$here/runs"
token=$(cat "$here/good-token")
if [ -n "$PLUGIN_BAD_FIRST" ] && [ "$(wc -l <"$here/runs")" -eq 1 ]; then token=bad; fi
exp=""
if [ -n "$PLUGIN_TTL" ]; then
  exp=", \"expirationTimestamp\": \"$(date -u -d "+$PLUGIN_TTL seconds" +%Y-%m-%dT%H:%M:%SZ)\""
fi
printf '{"apiVersion": "%s", "kind": "ExecCredential", "status": {"token": "%s"%s}}\n' "$PLUGIN_API" "$token" "$exp"
)SH", 0700);

  auto user = [&](const std::string& api, const std::string& extra_env) {
    std::filesystem::remove(dir + "/runs");
    return "    exec:\n      apiVersion: " + api + "\n      command: ./plugin.sh\n      interactiveMode: Never\n" +
           "      provideClusterInfo: true\n      env:\n      - {name: PLUGIN_API, value: " + api + "}\n" + extra_env;
  };

  SUBCASE("v1, cached while valid") {
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, user("client.authentication.k8s.io/v1", "")));
    for (int i = 0; i < 3; ++i) {
      auto l = c->list(r::configmaps, ns.name());
      REQUIRE_MESSAGE(l.ok(), l.error().one_line());
    }
    CHECK(count_lines(dir + "/runs") == 1);
    std::string info = read_all(dir + "/runs");
    CHECK(info.find("\"interactive\":false") != std::string::npos);
    CHECK(info.find(e2e::var("TESTENV_APISERVER")) != std::string::npos);  // provideClusterInfo
  }

  SUBCASE("v1beta1 with a short expirationTimestamp is re-run after it expires") {
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(
        dir, user("client.authentication.k8s.io/v1beta1", "      - {name: PLUGIN_TTL, value: \"2\"}\n")));
    REQUIRE(c->list(r::configmaps, ns.name()).ok());
    REQUIRE(c->list(r::configmaps, ns.name()).ok());
    CHECK(count_lines(dir + "/runs") == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds(3100));
    auto l = c->list(r::configmaps, ns.name());
    REQUIRE_MESSAGE(l.ok(), l.error().one_line());
    CHECK(count_lines(dir + "/runs") == 2);
  }

  SUBCASE("a refused credential makes the plugin run again") {
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(
        dir, user("client.authentication.k8s.io/v1", "      - {name: PLUGIN_BAD_FIRST, value: \"1\"}\n")));
    auto l = c->list(r::configmaps, ns.name());
    REQUIRE_MESSAGE(l.ok(), l.error().one_line());
    CHECK(count_lines(dir + "/runs") == 2);
  }

  SUBCASE("a failing plugin gives a one-line error") {
    kube_e2e::write_file(dir + "/fail.sh", "#!/bin/sh\necho 'login required' >&2\nexit 3\n", 0700);
    std::string u = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./fail.sh\n"
                    "      interactiveMode: Never\n";
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, u));
    auto l = c->list(r::configmaps, ns.name());
    REQUIRE_FALSE(l.ok());
    MESSAGE(l.error().one_line());
    CHECK(l.error().one_line().find("exited with 3: login required") != std::string::npos);
  }

  SUBCASE("interactiveMode Always without a terminal is refused") {
    std::string u = "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ./plugin.sh\n"
                    "      interactiveMode: Always\n";
    auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, u));
    auto l = c->list(r::configmaps, ns.name());
    REQUIRE_FALSE(l.ok());
    CHECK(l.error().one_line().find("interactive terminal") != std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("TLS: verification on by default, tls-server-name, insecure-skip-tls-verify warns") {
  std::string dir = kube_e2e::temp_dir("kube-tls");
  std::string cert = kube::base64_encode(read_all(e2e::var("TESTENV_ADMIN_CERT")));
  std::string key = kube::base64_encode(read_all(e2e::var("TESTENV_ADMIN_KEY")));
  std::string user = "    client-certificate-data: " + cert + "\n    client-key-data: " + key + "\n";
  auto write = [&](const std::string& cluster_extra) {
    kube_e2e::write_file(dir + "/kc", "apiVersion: v1\nkind: Config\ncurrent-context: t\nclusters:\n- name: c\n  cluster:\n"
                                      "    server: " + e2e::var("TESTENV_APISERVER") + "\n" + cluster_extra +
                                      "contexts:\n- name: t\n  context: {cluster: c, user: u}\n"
                                      "users:\n- name: u\n  user:\n" + user);
    return dir + "/kc";
  };
  SUBCASE("an unknown CA is refused") {
    auto c = kube_e2e::client_for_kubeconfig(write(""));  // system roots only
    auto l = c->get(r::namespaces, "", "default");
    REQUIRE_FALSE(l.ok());
    CHECK(l.error().kind == base::ErrorKind::CannotConnect);
    CHECK(l.error().reason == http::kReasonTLS);
    MESSAGE(l.error().one_line());
  }
  SUBCASE("insecure-skip-tls-verify works and warns") {
    kube::ConfigOptions o;
    o.kubeconfig = write("    insecure-skip-tls-verify: true\n");
    auto cfg = kube::load_config(o);
    REQUIRE(cfg.ok());
    REQUIRE(cfg->warnings.size() == 1);
    CHECK(cfg->warnings[0].find("TLS verification") != std::string::npos);
    auto c = kube_e2e::client_from(o);
    CHECK(c->get(r::namespaces, "", "default").ok());
  }
  SUBCASE("tls-server-name: a name of the certificate works, another is refused") {
    std::string ca = "    certificate-authority: " + e2e::var("TESTENV_CA") + "\n";
    auto c = kube_e2e::client_for_kubeconfig(write(ca + "    tls-server-name: kubernetes.default.svc\n"));
    auto ok = c->get(r::namespaces, "", "default");
    REQUIRE_MESSAGE(ok.ok(), ok.error().one_line());
    auto c2 = kube_e2e::client_for_kubeconfig(write(ca + "    tls-server-name: not-in-the-cert.example\n"));
    auto bad = c2->get(r::namespaces, "", "default");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().reason == http::kReasonTLS);
  }
  SUBCASE("basic auth is refused with a clear message") {
    user = "    username: admin\n    password: hunter2\n";
    kube::ConfigOptions o;
    o.kubeconfig = write("");
    auto cfg = kube::load_config(o);
    REQUIRE_FALSE(cfg.ok());
    CHECK(cfg.error().one_line() ==
          "user \"u\": uses basic authentication (username/password), which is not supported; use a client "
          "certificate, a token or an exec credential plugin");
  }
  std::filesystem::remove_all(dir);
}

TEST_CASE("an unreachable server is CannotConnect") {
  std::string dir = kube_e2e::temp_dir("kube-down");
  kube::ClientOptions co;
  co.retry.max_attempts = 2;
  co.retry.base = std::chrono::milliseconds(10);
  kube::ConfigOptions o;
  o.kubeconfig = kube_e2e::kubeconfig_with_user(dir, "    token: x\n", "https://127.0.0.1:1");
  auto c = kube_e2e::client_from(o, co);
  auto l = c->get(r::namespaces, "", "default");
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().kind == base::ErrorKind::CannotConnect);
  CHECK(c->stats().requests == 2);  // retried: nothing was sent
  MESSAGE(l.error().one_line());
  std::filesystem::remove_all(dir);
}
