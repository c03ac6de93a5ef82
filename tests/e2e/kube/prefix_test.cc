// A server URL with a path prefix (as behind Rancher:
// https://host/k8s/clusters/c-1) keeps the prefix on every request. A small
// python reverse proxy serves the apiserver under a prefix and refuses
// anything outside it.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <doctest/doctest.h>

#include "helpers.h"

extern char** environ;

using nlohmann::json;
namespace r = kube::resources;

namespace {

class Proxy {
 public:
  Proxy(const std::string& dir, const std::string& prefix) {
    std::string portfile = dir + "/port";
    std::vector<std::string> args = {"python3", e2e::source_root() + "/tests/e2e/kube/prefix_proxy.py", portfile, prefix,
                                     e2e::var("TESTENV_APISERVER"), e2e::var("TESTENV_CA"),
                                     e2e::var("TESTENV_ADMIN_CERT"), e2e::var("TESTENV_ADMIN_KEY")};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    REQUIRE(posix_spawnp(&pid_, "python3", nullptr, nullptr, argv.data(), environ) == 0);
    for (int i = 0; i < 100 && !std::filesystem::exists(portfile); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::ifstream f(portfile);
    f >> port_;
    REQUIRE(port_ > 0);
  }
  ~Proxy() {
    kill(pid_, SIGTERM);
    int st = 0;
    waitpid(pid_, &st, 0);
  }
  int port() const { return port_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace

TEST_CASE("a path-prefixed server URL keeps its prefix on every verb") {
  e2e::Namespace ns("kube-prefix");
  std::string dir = kube_e2e::temp_dir("kube-prefix");
  Proxy proxy(dir, "/k8s/clusters/c-1");
  std::string base = "http://127.0.0.1:" + std::to_string(proxy.port());

  // The client authenticates nothing itself here: the proxy holds the admin certificate.
  auto c = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, "    {}\n", base + "/k8s/clusters/c-1/"));
  std::vector<std::string> paths;
  c->transport().set_log([&](const kube::RequestLogEntry& e) { paths.push_back(e.path); });

  auto created = c->create(r::configmaps, ns.name(), kube_e2e::configmap("p", {{"a", "1"}}));
  REQUIRE_MESSAGE(created.ok(), created.error().one_line());
  REQUIRE(c->get(r::configmaps, ns.name(), "p").ok());
  REQUIRE(c->list(r::configmaps, ns.name()).ok());
  REQUIRE(c->patch(r::configmaps, ns.name(), "p", kube::PatchType::Merge, {{"data", {{"b", "2"}}}}).ok());
  REQUIRE(c->discovery().served(r::configmaps).ok());
  kube::DeleteOptions o;
  REQUIRE(c->remove(r::configmaps, ns.name(), "p", o).ok());
  CHECK(c->get(r::configmaps, ns.name(), "p").error().kind == base::ErrorKind::NotFound);
  CHECK(paths.size() == 7);

  // Without the prefix the proxy answers 404 for everything: the API looks unserved.
  auto bare = kube_e2e::client_for_kubeconfig(kube_e2e::kubeconfig_with_user(dir, "    {}\n", base));
  auto l = bare->list(r::configmaps, ns.name());
  REQUIRE_FALSE(l.ok());
  CHECK(l.error().reason == kube::kReasonNotServed);
  std::filesystem::remove_all(dir);
}
