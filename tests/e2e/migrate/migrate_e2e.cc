#include "migrate_e2e.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

namespace e2e {

using json = nlohmann::json;

LegacyFixture::LegacyFixture(const std::string& ns, const std::string& name, const std::vector<std::string>& args)
    : ns_(ns), name_(name) {
  dir_ = var("TESTENV_DIR") + "/fixtures/" + ns + "." + name;
  std::vector<std::string> argv = {testenv_tool("legacy-fixture"), "up",   "--name", name, "--namespace", ns,
                                   "--operator-namespace",         ns + "-op", "--dir", dir_};
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run(argv);
  REQUIRE_MESSAGE(r.rc == 0, "legacy-fixture up failed: " << r.err);
  std::ifstream f(dir_ + "/fixture.json");
  REQUIRE(f.good());
  info_ = json::parse(f);
}

LegacyFixture::~LegacyFixture() { run({testenv_tool("legacy-fixture"), "down", "--dir", dir_}); }

std::map<std::string, std::string> LegacyFixture::etcd_env() const {
  return parse_env_file(info_.value("etcdDir", "") + "/cluster.env");
}

CommandResult LegacyFixture::etcdctl(const std::vector<std::string>& args) const {
  auto e = etcd_env();
  std::string version = info_.value("version", "3.6");
  std::string bin = var(version == "3.4" ? "TESTENV_ETCD_34" : version == "3.5" ? "TESTENV_ETCD_35" : "TESTENV_ETCD_36");
  std::vector<std::string> argv = {bin + "/etcdctl", "--endpoints", e["ETCD_ENDPOINTS"]};
  if (e["ETCD_TLS"] == "1") {
    argv.insert(argv.end(), {"--cacert", e["ETCD_CACERT"], "--cert", e["ETCD_CERT"], "--key", e["ETCD_KEY"]});
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {{"ETCDCTL_API", "3"}});
}

long long LegacyFixture::etcd_revision() const {
  auto r = etcdctl({"get", "--write-out=json", "/no-such-key"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  return json::parse(r.out)["header"]["revision"].get<long long>();
}

std::string LegacyFixture::etcd_cluster_id() const {
  auto r = etcdctl({"member", "list", "--write-out=json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx",
                static_cast<unsigned long long>(json::parse(r.out)["header"]["cluster_id"].get<unsigned long long>()));
  return buf;
}

std::string etcd_migrate_path() {
  const char* p = std::getenv("ETCD_MIGRATE");
  REQUIRE_MESSAGE(p != nullptr, "ETCD_MIGRATE is not set (meson sets it)");
  return p;
}

CommandResult etcd_migrate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {etcd_migrate_path()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, {{"KUBECONFIG", var("KUBECONFIG")}, {"NO_COLOR", "1"}});
}

json adopt_plan(const LegacyFixture& f, const std::vector<std::string>& extra, int& rc) {
  std::vector<std::string> args = {"adopt", "-n", f.ns(), "--connect", "direct", "-o", "json",
                                   "--legacy-controller", f.legacy_controller(), "--new-controller", f.new_controller()};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = etcd_migrate(args);
  rc = r.rc;
  INFO("stderr: " << r.err);
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE_MESSAGE(!doc.is_discarded(), "stdout is not JSON: " << r.out);
  return doc;
}

json cluster_plan(const json& doc, const std::string& ns, const std::string& name) {
  for (const auto& c : doc.value("clusters", json::array())) {
    if (c.value("namespace", "") == ns && c.value("name", "") == name) return c;
  }
  return nullptr;
}

std::vector<std::string> verdict_ids(const json& plan) {
  std::vector<std::string> ids;
  for (const auto& v : plan.value("verdicts", json::array())) ids.push_back(v.value("id", ""));
  return ids;
}

bool has_verdict(const json& plan, const std::string& id) {
  for (const auto& v : verdict_ids(plan)) {
    if (v == id) return true;
  }
  return false;
}

std::map<std::string, std::string> fingerprint(const LegacyFixture& f) {
  const std::string& ns = f.ns();
  std::map<std::string, std::string> out;
  auto add = [&](const std::string& text) {
    json list = json::parse(text);
    for (const auto& o : list["items"]) {
      out[o.value("kind", "") + "/" + o["metadata"].value("namespace", "") + "/" + o["metadata"].value("name", "")] =
          o["metadata"].value("resourceVersion", "");
    }
  };
  add(kubectl({"-n", ns, "get",
               "pods,services,secrets,configmaps,persistentvolumeclaims,statefulsets,controllerrevisions,"
               "poddisruptionbudgets,jobs,etcdclusters.etcd.aenix.io,etcdbackups.etcd.aenix.io,"
               "etcdbackupschedules.etcd.aenix.io,etcdclusters.etcd-operator.cozystack.io,"
               "etcdmembers.etcd-operator.cozystack.io,etcdsnapshots.etcd-operator.cozystack.io",
               "-o", "json"}));
  const auto& hooks = f.info()["webhooks"];
  add(kubectl({"get", "mutatingwebhookconfigurations/" + hooks[0].get<std::string>(),
               "validatingwebhookconfigurations/" + hooks[1].get<std::string>(), "-o", "json"}));
  return out;
}

}  // namespace e2e
