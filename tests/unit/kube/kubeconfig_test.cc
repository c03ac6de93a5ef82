#include "kube/kubeconfig.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <doctest/doctest.h>

#include "kube/config.h"
#include "support.h"

namespace {

using unit_test::TempDir;

const char* kOne = R"(apiVersion: v1
kind: Config
current-context: one
clusters:
- name: c1
  cluster:
    server: https://one.example:6443/
    certificate-authority: pki/ca.crt
    tls-server-name: api.one
contexts:
- name: one
  context: {cluster: c1, user: u1, namespace: ns1}
- name: shared
  context: {cluster: c1, user: u1}
users:
- name: u1
  user:
    client-certificate: pki/u1.crt
    client-key: /abs/u1.key
    tokenFile: token
)";

const char* kTwo = R"(current-context: two
clusters:
- name: c1
  cluster: {server: https://ignored.example}
- name: c2
  cluster:
    server: https://two.example
    certificate-authority-data: UEVNLUNB
    insecure-skip-tls-verify: false
contexts:
- name: two
  context: {cluster: c2, user: u2}
- name: shared
  context: {cluster: c2, user: u2}
users:
- name: u2
  user:
    token: t0ken
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/plugin
      args: [get-token]
      env:
      - {name: A, value: b}
      interactiveMode: Never
)";

kube::ConfigOptions opts() {
  kube::ConfigOptions o;
  o.kubeconfig_env = "";
  o.home = "/nonexistent-home";
  o.service_host = "";
  o.service_port = "";
  return o;
}

}  // namespace

TEST_CASE("relative paths resolve against the kubeconfig's folder; data is base64-decoded") {
  TempDir d;
  auto kc = kube::load_kubeconfig_file(d.write("one", kOne));
  REQUIRE(kc.ok());
  CHECK(kc->clusters["c1"].certificate_authority == d.path + "/pki/ca.crt");
  CHECK(kc->users["u1"].client_certificate == d.path + "/pki/u1.crt");
  CHECK(kc->users["u1"].client_key == "/abs/u1.key");
  CHECK(kc->users["u1"].token_file == d.path + "/token");
  auto two = kube::load_kubeconfig_file(d.write("two", kTwo));
  REQUIRE(two.ok());
  CHECK(two->clusters["c2"].certificate_authority_data == "PEM-CA");
  REQUIRE(two->users["u2"].exec.has_value());
  CHECK(two->users["u2"].exec->command == d.path + "/bin/plugin");
  CHECK(two->users["u2"].exec->args == std::vector<std::string>{"get-token"});
  CHECK(two->users["u2"].exec->env.at(0) == std::pair<std::string, std::string>{"A", "b"});
}

TEST_CASE("KUBECONFIG merges in order: the first file wins per name and for current-context") {
  TempDir d;
  std::string one = d.write("one", kOne), two = d.write("two", kTwo);
  auto o = opts();
  o.kubeconfig_env = two + "::" + d.path + "/missing:" + one;
  auto rc = kube::load_config(o);
  REQUIRE_MESSAGE(rc.ok(), rc.error().one_line());
  CHECK(rc->context == "two");
  CHECK(rc->server == "https://two.example");
  CHECK(rc->token == "t0ken");
  CHECK(rc->exec.has_value());
  CHECK(rc->ns == "default");
  CHECK_FALSE(rc->ns_from_flag_or_context);

  o.kubeconfig_env = one + ":" + two;
  o.context = "shared";  // defined in both: the first file's wins
  rc = kube::load_config(o);
  REQUIRE(rc.ok());
  CHECK(rc->server == "https://one.example:6443");  // trailing '/' dropped
  CHECK(rc->tls_server_name == "api.one");
  o.context = "two";  // a context from the second file using the first's c1? no: c2
  rc = kube::load_config(o);
  REQUIRE(rc.ok());
  CHECK(rc->server == "https://two.example");
  CHECK(rc->ca_pem == "PEM-CA");
}

TEST_CASE("namespace: -n, else the context's, else default") {
  TempDir d;
  auto o = opts();
  o.kubeconfig = d.write("one", kOne);
  auto rc = kube::load_config(o);
  REQUIRE(rc.ok());
  CHECK(rc->ns == "ns1");
  o.ns = "flag";
  CHECK(kube::load_config(o)->ns == "flag");
  o.ns.clear();
  o.context = "shared";
  CHECK(kube::load_config(o)->ns == "default");
}

TEST_CASE("--kubeconfig wins over KUBECONFIG and must exist; ~/.kube/config is the fallback") {
  TempDir d;
  auto o = opts();
  o.kubeconfig_env = d.write("two", kTwo);
  o.kubeconfig = d.write("one", kOne);
  CHECK(kube::load_config(o)->context == "one");
  o.kubeconfig = d.path + "/nope";
  auto missing = kube::load_config(o);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().one_line() == "kubeconfig \"" + d.path + "/nope\": cannot read: No such file or directory; give an existing file with --kubeconfig or KUBECONFIG");
  CHECK(base::exit_code(missing.error().kind) == 6);

  auto h = opts();
  std::filesystem::create_directories(d.path + "/home/.kube");
  d.write("home/.kube/config", kOne);
  h.home = d.path + "/home";
  CHECK(kube::load_config(h)->context == "one");
}

TEST_CASE("one-line errors: bad YAML, unknown context, missing user or cluster, nothing found") {
  TempDir d;
  auto o = opts();
  o.kubeconfig = d.write("bad", "clusters: [\n  - name: x\n  bad: : :\n");
  auto bad = kube::load_config(o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().one_line().find("kubeconfig \"" + d.path + "/bad\": invalid YAML at line ") == 0);
  CHECK(bad.error().one_line().find('\n') == std::string::npos);

  o.kubeconfig = d.write("one", kOne);
  o.context = "nope";
  auto unknown = kube::load_config(o);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().kind == base::ErrorKind::NotFound);
  CHECK(unknown.error().one_line() == "context \"nope\": not found in kubeconfig \"" + d.path +
                                          "/one\"; list them with 'kubectl config get-contexts'");

  o.context.clear();
  o.kubeconfig = d.write("nouser", "current-context: x\nclusters:\n- name: c\n  cluster: {server: https://h}\n"
                                   "contexts:\n- name: x\n  context: {cluster: c, user: ghost}\n");
  auto nouser = kube::load_config(o);
  REQUIRE_FALSE(nouser.ok());
  CHECK(nouser.error().one_line() ==
        "context \"x\": names user \"ghost\", which is not in kubeconfig \"" + d.path + "/nouser\"");

  o.kubeconfig = d.write("nocluster", "current-context: x\ncontexts:\n- name: x\n  context: {cluster: gone}\n");
  auto nocluster = kube::load_config(o);
  REQUIRE_FALSE(nocluster.ok());
  CHECK(nocluster.error().one_line().find("context \"x\": names cluster \"gone\"") == 0);

  o.kubeconfig = d.write("nocurrent", "clusters: []\n");
  auto nocurrent = kube::load_config(o);
  REQUIRE_FALSE(nocurrent.ok());
  CHECK(nocurrent.error().one_line().find("no context") != std::string::npos);

  o.kubeconfig = d.write("notamap", "- a\n- b\n");
  CHECK(kube::load_config(o).error().one_line().find("not a kubeconfig") != std::string::npos);

  o.kubeconfig = d.write("badb64", "users:\n- name: u\n  user: {client-key-data: '!!!'}\n");
  CHECK(kube::load_config(o).error().one_line() ==
        "kubeconfig \"" + d.path + "/badb64\": users[\"u\"].user.client-key-data is not valid base64");

  auto none = opts();
  none.kubeconfig_env = "";
  auto nothing = kube::load_config(none);
  REQUIRE_FALSE(nothing.ok());
  CHECK(nothing.error().one_line().find("no kubeconfig found at /nonexistent-home/.kube/config") == 0);
}

TEST_CASE("KUBECONFIG naming no file that exists is 6 with --kubeconfig's line; one that exists is enough") {
  TempDir d;
  auto flag = opts();
  flag.kubeconfig = d.path + "/missing";
  auto by_flag = kube::load_config(flag);
  REQUIRE_FALSE(by_flag.ok());
  auto env = opts();
  env.kubeconfig_env = d.path + "/missing";
  auto by_env = kube::load_config(env);
  REQUIRE_FALSE(by_env.ok());
  CHECK(by_env.error().kind == base::ErrorKind::NotFound);
  CHECK(by_env.error().one_line() == by_flag.error().one_line());

  env.kubeconfig_env = d.path + "/a:" + d.path + "/b";
  auto both = kube::load_config(env);
  REQUIRE_FALSE(both.ok());
  CHECK(both.error().kind == base::ErrorKind::NotFound);
  CHECK(both.error().one_line() == "kubeconfig \"" + d.path + "/a:" + d.path +
                                       "/b\": cannot read: none of these files exists; give an existing file with "
                                       "--kubeconfig or KUBECONFIG");

  env.kubeconfig_env = d.path + "/a:" + d.write("one", kOne);
  CHECK(kube::load_config(env).ok());

  // In a Pod, as kubectl, the in-cluster config stands in for a KUBECONFIG that names nothing.
  env.kubeconfig_env = d.path + "/a";
  env.service_host = "10.0.0.1";
  env.service_port = "443";
  env.service_account_dir = d.path + "/sa";
  std::filesystem::create_directories(d.path + "/sa");
  d.write("sa/token", "t");
  auto pod = kube::load_config(env);
  REQUIRE(pod.ok());
  CHECK(pod->context == "in-cluster");
}

TEST_CASE("a directory or another YAML document given as kubeconfig is named as such, not as a config without context") {
  TempDir d;
  auto o = opts();
  std::filesystem::create_directories(d.path + "/kube");
  o.kubeconfig = d.path + "/kube";
  auto dir = kube::load_config(o);
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.error().kind == base::ErrorKind::Failed);
  CHECK(dir.error().one_line() == "kubeconfig \"" + d.path +
                                      "/kube\": not a kubeconfig: a directory; give a kubeconfig file (kind: Config), "
                                      "e.g. ~/.kube/config");
  d.write("kube/config", kOne);
  CHECK(kube::load_config(o).error().one_line() ==
        "kubeconfig \"" + d.path + "/kube\": not a kubeconfig: a directory; give the file itself, e.g. " + d.path +
            "/kube/config");
  o.kubeconfig.clear();
  o.kubeconfig_env = d.path + "/kube";
  CHECK(kube::load_config(o).error().one_line().find("not a kubeconfig: a directory") != std::string::npos);

  o.kubeconfig_env = "";
  o.kubeconfig = d.write("deploy.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n");
  auto deploy = kube::load_config(o);
  REQUIRE_FALSE(deploy.ok());
  CHECK(deploy.error().kind == base::ErrorKind::Failed);
  CHECK(deploy.error().one_line() == "kubeconfig \"" + d.path +
                                         "/deploy.yaml\": not a kubeconfig: a YAML document of kind Deployment (apps/v1), "
                                         "not Config; give a kubeconfig file (kind: Config), e.g. ~/.kube/config");
  o.kubeconfig = d.write("values.yaml", "replicaCount: 3\nimage: {tag: v1}\n");
  CHECK(kube::load_config(o).error().one_line().find(
            "not a kubeconfig: a YAML mapping of replicaCount, image, with none of clusters, contexts, users or "
            "current-context") != std::string::npos);
  // kind and apiVersion are optional in a kubeconfig; kubectl's own empty one still loads.
  o.kubeconfig = d.write("empty-config", "apiVersion: v1\nkind: Config\npreferences: {}\nclusters: null\n");
  CHECK(kube::load_config(o).error().one_line().find("current-context is not set") != std::string::npos);
}

TEST_CASE("an empty file is an empty config") {
  auto kc = kube::parse_kubeconfig("", "/x/empty");
  REQUIRE(kc.ok());
  CHECK(kc->contexts.empty());
}

TEST_CASE("refused auth: basic auth and auth-provider; insecure with a CA; half a key pair") {
  auto parse = [](const std::string& user, const std::string& cluster = "{server: https://h}") {
    auto kc = kube::parse_kubeconfig("current-context: x\nclusters:\n- name: c\n  cluster: " + cluster +
                                         "\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\n"
                                         "users:\n- name: u\n  user: " + user + "\n",
                                     "/k");
    REQUIRE(kc.ok());
    return kube::config_from_kubeconfig(*kc, {});
  };
  auto basic = parse("{username: a, password: secretpw}");
  REQUIRE_FALSE(basic.ok());
  CHECK(basic.error().one_line().find("basic authentication") != std::string::npos);
  CHECK(basic.error().one_line().find("secretpw") == std::string::npos);
  CHECK(parse("{auth-provider: {name: oidc}}").error().one_line().find("auth-provider \"oidc\"") != std::string::npos);
  CHECK(parse("{}", "{server: https://h, insecure-skip-tls-verify: true, certificate-authority: /ca}")
            .error().one_line().find("both insecure-skip-tls-verify and a certificate authority") != std::string::npos);
  CHECK(parse("{client-certificate: /c}").error().one_line() == "user \"u\": has a client certificate but no client key");
  auto insecure = parse("{}", "{server: https://h, insecure-skip-tls-verify: true}");
  REQUIRE(insecure.ok());
  CHECK(insecure->warnings.size() == 1);
  auto bare = parse("{}", "{server: h.example:6443}");
  CHECK(bare->server == "https://h.example:6443");
}

TEST_CASE("in-cluster config from the service-account folder") {
  TempDir d;
  d.write("token", "tok\n");
  d.write("ca.crt", "CA");
  d.write("namespace", "ops\n");
  auto o = opts();
  o.service_host = "10.0.0.1";
  o.service_port = "443";
  o.service_account_dir = d.path;
  auto rc = kube::load_config(o);
  REQUIRE_MESSAGE(rc.ok(), rc.error().one_line());
  CHECK(rc->server == "https://10.0.0.1:443");
  CHECK(rc->token_file == d.path + "/token");
  CHECK(rc->ca_file == d.path + "/ca.crt");
  CHECK(rc->ns == "ops");
  o.service_host = "fd00::1";
  CHECK(kube::load_config(o)->server == "https://[fd00::1]:443");
}

TEST_CASE("KUBECONFIG splitting drops empty entries and duplicates") {
  CHECK(kube::split_kubeconfig_env("a::b:a:") == std::vector<std::string>{"a", "b"});
  CHECK(kube::split_kubeconfig_env("").empty());
}
