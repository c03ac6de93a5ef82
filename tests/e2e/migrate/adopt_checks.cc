#include "adopt_checks.h"

#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "etcd/client.h"
#include "etcd/member_id.h"

namespace e2e {

using json = nlohmann::json;

namespace {

json get_json(const std::string& ns, const std::vector<std::string>& what) {
  std::vector<std::string> args = {"-n", ns, "get"};
  args.insert(args.end(), what.begin(), what.end());
  args.insert(args.end(), {"-o", "json"});
  return json::parse(kubectl(args));
}

json live_members(const LegacyFixture& f) {
  auto r = f.etcdctl({"member", "list", "--write-out=json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  return json::parse(r.out);
}

std::string hex(unsigned long long v) { return etcd::format_member_id(v); }

}  // namespace

bool wait_statefulset_gone(const LegacyFixture& f, std::chrono::seconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (kubectl_result({"-n", f.ns(), "get", "statefulset", f.name()}).rc == 0) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return true;
}

Before record(const LegacyFixture& f) {
  Before b;
  b.legacy_uid = kubectl({"-n", f.ns(), "get", "etcdclusters.etcd.aenix.io", f.name(), "-o", "jsonpath={.metadata.uid}"});
  json members = live_members(f);
  b.cluster_id = hex(members["header"]["cluster_id"].get<unsigned long long>());
  for (const auto& m : members["members"]) b.member_ids[m["name"]] = hex(m["ID"].get<unsigned long long>());
  for (const auto& [name, id] : b.member_ids) {
    b.pod_uids[name] = kubectl({"-n", f.ns(), "get", "pod", name, "-o", "jsonpath={.metadata.uid}"});
  }
  return b;
}

etcd::Config etcd_config(const LegacyFixture& f) {
  auto env = f.etcd_env();
  etcd::Config config;
  std::string eps = env["ETCD_ENDPOINTS"];
  for (size_t start = 0; start < eps.size();) {
    size_t comma = eps.find(',', start);
    config.endpoints.push_back(eps.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (env["ETCD_TLS"] == "1") {
    config.tls.ca_file = env["ETCD_CACERT"];
    config.tls.cert_file = env["ETCD_CERT"];
    config.tls.key_file = env["ETCD_KEY"];
  }
  return config;
}

Writer::Writer(const LegacyFixture& f) {
  const etcd::Config config = etcd_config(f);
  auto c = etcd::Client::create(config);
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().one_line()));
  client_ = std::move(*c);
  thread_ = std::thread([this] {
    while (!stop_) {
      long long n = written_;
      auto r = client_->put("/e2e-writer/" + std::to_string(n), std::to_string(n));
      if (r) ++written_;
      else ++errors_;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
}

Writer::~Writer() { stop(); }

long long Writer::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  return written_;
}

std::string backup_dir(const LegacyFixture& f) {
  std::string d = var("TESTENV_DIR") + "/backups/" + f.ns();
  std::filesystem::create_directories(d);
  return d;
}

CommandResult apply(const LegacyFixture& f, const std::vector<std::string>& extra,
                    const std::map<std::string, std::string>& env) {
  std::vector<std::string> argv = {etcd_migrate_path(), "adopt", "-n", f.ns(), "--connect", "direct", "--apply", "--yes",
                                   "--legacy-controller", f.legacy_controller(), "--new-controller", f.new_controller()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::map<std::string, std::string> e = {{"KUBECONFIG", var("KUBECONFIG")}, {"NO_COLOR", "1"}};
  e.insert(env.begin(), env.end());
  return run(argv, e);
}

void check_adopted(const LegacyFixture& f, const Before& before, bool auth) {
  const std::string& ns = f.ns();
  const std::string& c = f.name();
  INFO("namespace " << ns);
  // The legacy control plane is gone; the legacy CR stays Terminating (docs/rules.md#legacy-webhooks).
  json legacy = get_json(ns, {"etcdclusters.etcd.aenix.io", c});
  CHECK(legacy["metadata"].contains("deletionTimestamp"));
  // The adoption does not wait for the garbage collector to let the
  // StatefulSet go (docs/adoption-reown.md); it goes soon after.
  CHECK(wait_statefulset_gone(f));
  CHECK(kubectl_result({"-n", ns, "get", "configmap", c + "-cluster-state"}).rc != 0);
  CHECK(kubectl_result({"-n", ns, "get", "poddisruptionbudget", c}).rc != 0);
  const json revisions = get_json(ns, {"controllerrevisions"});
  for (const auto& cr : revisions["items"]) {
    CHECK(cr["metadata"]["name"].get<std::string>().rfind(c + "-", 0) != 0);
  }

  json cluster = get_json(ns, {"etcdclusters.etcd-operator.cozystack.io", c});
  CHECK(cluster["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/adopted-from"] == before.legacy_uid);
  CHECK(cluster["metadata"]["annotations"].contains("cli.etcd-operator.cozystack.io/adoption"));
  CHECK(cluster["status"]["clusterID"] == before.cluster_id);
  CHECK(cluster["status"]["clusterToken"] == c + "-" + ns);
  CHECK(cluster["status"]["observed"]["replicas"] == static_cast<int>(before.member_ids.size()));
  CHECK(cluster["spec"].contains("auth") == auth);
  std::string cluster_uid = cluster["metadata"]["uid"];

  std::map<std::string, std::string> member_uids;
  for (const auto& [name, id] : before.member_ids) {
    json m = get_json(ns, {"etcdmembers", name});
    member_uids[name] = m["metadata"]["uid"];
    CHECK(m["metadata"]["ownerReferences"].size() == 1);
    CHECK(m["metadata"]["ownerReferences"][0]["uid"] == cluster_uid);
    CHECK(m["metadata"]["ownerReferences"][0]["controller"] == true);
    CHECK(m["status"]["memberID"] == id);
    CHECK(m["status"]["podUID"] == before.pod_uids.at(name));
    CHECK(m["metadata"]["annotations"]["etcd-operator.cozystack.io/data-dir-subpath"] == "default.etcd");

    json pod = get_json(ns, {"pod", name});
    CHECK(pod["metadata"]["uid"] == before.pod_uids.at(name));  // never recreated
    const json& labels = pod["metadata"]["labels"];
    CHECK(labels["etcd-operator.cozystack.io/cluster"] == c);
    CHECK(labels["etcd-operator.cozystack.io/role"] == "voter");
    CHECK(labels["app.kubernetes.io/component"] == name);
    CHECK(labels["app.kubernetes.io/instance"] == c);  // the legacy Services keep selecting it
    int controllers = 0;
    for (const auto& r : pod["metadata"]["ownerReferences"]) {
      if (r.value("controller", false)) {
        ++controllers;
        CHECK(r["kind"] == "EtcdMember");
        CHECK(r["uid"] == member_uids[name]);
      }
    }
    CHECK(controllers == 1);
    json pvc = get_json(ns, {"pvc", "data-" + name});
    CHECK(pvc["metadata"]["ownerReferences"][0]["uid"] == member_uids[name]);
    CHECK_FALSE(pvc["metadata"]["labels"].contains("etcd-operator.cozystack.io/role"));
  }
  std::string hl = f.info().value("headlessService", c + "-headless");
  json headless = get_json(ns, {"service", hl});
  CHECK(headless["metadata"]["ownerReferences"].size() == before.member_ids.size());
  for (const auto& r : headless["metadata"]["ownerReferences"]) {
    CHECK(r["kind"] == "EtcdMember");
    CHECK(r["controller"] == false);
  }
  if (f.info().value("clientService", c) == c) {
    json svc = get_json(ns, {"service", c});
    CHECK(svc["spec"]["clusterIP"] == "None");
    CHECK(svc["spec"]["selector"] == json{{"etcd-operator.cozystack.io/cluster", c}});
    CHECK(svc["metadata"]["ownerReferences"][0]["uid"] == cluster_uid);
  }
  // etcd: the same cluster and members.
  json members = live_members(f);
  CHECK(hex(members["header"]["cluster_id"].get<unsigned long long>()) == before.cluster_id);
  std::map<std::string, std::string> ids;
  for (const auto& m : members["members"]) ids[m["name"]] = hex(m["ID"].get<unsigned long long>());
  CHECK(ids == before.member_ids);
}

void check_keys(const LegacyFixture& f, long long written) {
  auto r = f.etcdctl({"get", "/e2e-writer/", "--prefix", "--keys-only", "--write-out=json"});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  CHECK(json::parse(r.out).value("count", 0LL) == written);
}

void check_snapshot_file(const LegacyFixture& f, const std::string& path) {
  std::string version = f.info().value("version", "3.6");
  REQUIRE_MESSAGE(std::filesystem::exists(path), path);
  CHECK((std::filesystem::status(path).permissions() & std::filesystem::perms::group_read) ==
        std::filesystem::perms::none);
  CommandResult r;
  if (version == "3.4") {
    r = run({var("TESTENV_ETCD_34") + "/etcdctl", "snapshot", "status", path, "--write-out=json"}, {{"ETCDCTL_API", "3"}});
  } else {
    r = run({var(version == "3.5" ? "TESTENV_ETCD_35" : "TESTENV_ETCD_36") + "/etcdutl", "snapshot", "status", path,
             "--write-out=json"});
  }
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  CHECK(json::parse(r.out).value("totalKey", 0) > 0);
}

void check_operator_auth_enable(const LegacyFixture& f) {
  std::string secret = f.name() + "-root-credentials";
  std::string b64 = kubectl({"-n", f.ns(), "get", "secret", secret, "-o", "jsonpath={.data.password}"});
  auto decoded = run({"base64", "-d"}, {}, b64);
  REQUIRE(decoded.rc == 0);
  std::string password = decoded.out;
  REQUIRE_FALSE(password.empty());
  // The operator's sequence: UserAdd root (tolerating "exists"), grant root, AuthEnable.
  auto add = f.etcdctl({"user", "add", "root", "--new-user-password=operator-would-generate"});
  CHECK((add.rc == 0 || add.err.find("already exists") != std::string::npos));
  auto grant = f.etcdctl({"user", "grant-role", "root", "root"});
  CHECK(grant.rc == 0);
  auto enable = f.etcdctl({"auth", "enable"});
  CHECK_MESSAGE(enable.rc == 0, enable.err);
  auto login = f.etcdctl({"--user", "root:" + password, "get", "/e2e-writer/0"});
  CHECK_MESSAGE(login.rc == 0, "root cannot log in with the Secret's password: " << login.err);
  auto wrong = f.etcdctl({"--user", "root:not-the-password", "get", "/e2e-writer/0"});
  CHECK(wrong.rc != 0);
}

std::string graph(const LegacyFixture& f) {
  const std::string& ns = f.ns();
  json all = get_json(ns, {"pods,services,persistentvolumeclaims,configmaps,statefulsets,controllerrevisions,"
                           "poddisruptionbudgets,etcdclusters.etcd.aenix.io,etcdclusters.etcd-operator.cozystack.io,"
                           "etcdmembers.etcd-operator.cozystack.io"});
  json out = json::object();
  for (const auto& o : all["items"]) {
    std::string kind = o.value("kind", "");
    json n;
    n["labels"] = o["metadata"].value("labels", json::object());
    n["labels"].erase("controller-revision-hash");
    json ann = o["metadata"].value("annotations", json::object());
    for (const char* masked : {"cli.etcd-operator.cozystack.io/adopted-from", "cli.etcd-operator.cozystack.io/adoption"}) {
      if (ann.contains(masked)) ann[masked] = "*";
    }
    n["annotations"] = ann;
    json refs = json::array();
    for (const auto& r : o["metadata"].value("ownerReferences", json::array())) {
      refs.push_back({r.value("kind", ""), r.value("name", ""), r.value("controller", false),
                      r.value("blockOwnerDeletion", false)});
    }
    n["owners"] = refs;
    n["deleting"] = o["metadata"].contains("deletionTimestamp");
    if ((kind == "EtcdCluster" || kind == "EtcdMember") && o.value("apiVersion", "") == "etcd-operator.cozystack.io/v1alpha2") {
      n["spec"] = o.value("spec", json::object());
      json status = o.value("status", json::object());
      for (const char* key : {"clusterID", "memberID", "podUID"}) {
        if (status.contains(key)) status[key] = "*";
      }
      n["status"] = status;
    }
    if (kind == "Service") n["spec"] = {{"headless", o["spec"].value("clusterIP", "") == "None"}, {"selector", o["spec"].value("selector", json::object())}};
    out[o.value("apiVersion", "") + "/" + kind + "/" + o["metadata"].value("name", "")] = n;
  }
  std::string text = out.dump(1);
  for (size_t at; (at = text.find(ns)) != std::string::npos;) text.replace(at, ns.size(), "NS");
  return text;
}

}  // namespace e2e
