// report: the support bundle of a native TLS + auth cluster
// (docs/support-bundle.md), extracted with tar, its files parsed, and
// searched for every value of every Secret of the namespace; --dir; and a
// partial bundle when etcd cannot be reached (exit 5, the failures in
// summary.json).
#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "admin_e2e.h"
#include "kube/base64.h"

using namespace admin_e2e;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/e2e-report-XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() { fs::remove_all(path); }
};

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The single top folder the archive extracted into.
fs::path top_folder(const std::string& dir) {
  std::vector<fs::path> tops;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_directory()) tops.push_back(e.path());
  }
  REQUIRE(tops.size() == 1);
  return tops.front();
}

// Every value of every Secret of the namespace, as stored and decoded.
std::vector<std::string> secret_values(const NativeCluster& c) {
  std::vector<std::string> out;
  json list = json::parse(c.kubectl({"get", "secrets", "-o", "json"}));
  for (const auto& s : list["items"]) {
    if (!s.contains("data")) continue;
    for (const auto& [k, v] : s["data"].items()) {
      const std::string stored = v.get<std::string>();
      if (stored.empty()) continue;
      out.push_back(stored);
      auto decoded = kube::base64_decode(stored);
      REQUIRE(decoded);
      out.push_back(*decoded);
    }
  }
  REQUIRE(out.size() >= 2 * 7);  // server, peer, operator-client (3 keys each), root credentials (2)
  return out;
}

// A hit: long values anywhere; short ones (a user name) as a whole JSON or
// YAML scalar, since "root" is also a part of ordinary words.
void no_secret_in(const fs::path& root, const std::vector<std::string>& values) {
  int files = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    ++files;
    const std::string text = slurp(e.path());
    for (const auto& v : values) {
      bool hit = v.size() >= 8 ? text.find(v) != std::string::npos
                               : text.find("\"" + v + "\"") != std::string::npos ||
                                     text.find(": " + v + "\n") != std::string::npos ||
                                     text.find("- " + v + "\n") != std::string::npos;
      CHECK_MESSAGE(!hit, e.path().string() << " holds a Secret value (" << v.size() << " bytes)");
    }
  }
  CHECK(files > 10);
}

const char* const kYaml[] = {"kube/etcdcluster.yaml", "kube/etcdmembers.yaml", "kube/pods.yaml",
                             "kube/pvcs.yaml",        "kube/services.yaml",    "kube/pdb.yaml",
                             "kube/events.yaml",      "kube/secrets.yaml",     "operator/deployment.yaml",
                             "operator/lease.yaml"};
const char* const kJson[] = {"summary.json",      "certs.json",     "etcd/status.json", "etcd/health.json",
                             "etcd/members.json", "etcd/check.json", "etcd/alarms.json"};

}  // namespace

TEST_CASE("report: a complete bundle without any Secret value") {
  FixtureOptions o;
  o.auth = true;
  NativeCluster c(o);
  // A PDB as the operator makes one, so that its file is there too.
  e2e::kubectl({"-n", c.ns(), "create", "pdb", c.name(), "--selector",
                "etcd-operator.cozystack.io/cluster=" + c.name(), "--min-available", "2"});
  TempDir tmp;
  const std::string archive = tmp.path + "/bundle.tar.gz";
  auto r = c.tool({"report"}, {"--file", archive});
  INFO("stderr: " << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out == archive + "\n");
  CHECK(r.err.find("asking etcd") != std::string::npos);  // progress goes to stderr

  const std::string out = tmp.path + "/x";
  fs::create_directories(out);
  auto x = e2e::run({"tar", "xzf", archive, "-C", out});
  REQUIRE_MESSAGE(x.rc == 0, x.err);
  const fs::path root = top_folder(out);
  CHECK(root.filename().string().rfind("etcd-report-" + c.ns() + "-" + c.name() + "-", 0) == 0);

  for (const char* f : kYaml) {
    INFO(f);
    REQUIRE(fs::exists(root / f));
    CHECK_NOTHROW(YAML::LoadFile((root / f).string()));
  }
  std::map<std::string, json> docs;
  for (const char* f : kJson) {
    INFO(f);
    REQUIRE(fs::exists(root / f));
    docs[f] = json::parse(slurp(root / f), nullptr, false);
    CHECK_FALSE(docs[f].is_discarded());
  }
  const json& summary = docs["summary.json"];
  CHECK(summary["complete"] == true);
  CHECK(summary["errors"].empty());
  CHECK(summary["operator"]["deploymentFound"] == true);
  CHECK(summary["operator"]["leaseFound"] == true);
  CHECK(docs["etcd/status.json"]["members"].size() == 3);
  CHECK(docs["etcd/members.json"]["members"].size() == 3);
  CHECK(docs["etcd/check.json"]["findings"].empty());
  CHECK(docs["certs.json"]["certificates"].size() == 3);

  YAML::Node members = YAML::LoadFile((root / "kube/etcdmembers.yaml").string());
  CHECK(members["items"].size() == 3);
  CHECK(YAML::LoadFile((root / "kube/pvcs.yaml").string())["items"].size() == 3);
  CHECK(YAML::LoadFile((root / "kube/pods.yaml").string())["items"].size() == 3);
  // The Secrets by name and key names only.
  YAML::Node secrets = YAML::LoadFile((root / "kube/secrets.yaml").string());
  bool root_credentials = false;
  for (const auto& s : secrets["items"]) {
    CHECK_FALSE(s["data"]);
    CHECK_FALSE(s["stringData"]);
    if (s["metadata"]["name"].as<std::string>() == c.name() + "-root-credentials") {
      root_credentials = true;
      CHECK(s["keys"].size() == 2);
    }
  }
  CHECK(root_credentials);

  no_secret_in(root, secret_values(c));

  // The same files as a directory.
  const std::string dir = tmp.path + "/dir";
  auto d = c.tool({"report"}, {"--dir", dir});
  REQUIRE_MESSAGE(d.rc == 0, d.err);
  CHECK(d.out == dir + "\n");
  for (const char* f : kJson) CHECK(fs::exists(fs::path(dir) / f));
  no_secret_in(dir, secret_values(c));
  // An existing target is refused and left alone.
  auto again = c.tool({"report"}, {"--dir", dir});
  CHECK(again.rc == 3);
}

TEST_CASE("report with etcd down: the bundle is written, partial, exit 5") {
  FixtureOptions o;
  o.members = 1;
  NativeCluster c(o);
  for (const auto& m : c.members()) c.act("stop", m);
  TempDir tmp;
  const std::string archive = tmp.path + "/partial.tar.gz";
  auto r = c.tool({"report"}, {"--file", archive, "--dial-timeout", "1s", "--command-timeout", "2s"});
  INFO("stderr: " << r.err);
  CHECK(r.rc == 5);
  CHECK(r.out == archive + "\n");
  REQUIRE(fs::exists(archive));
  auto x = e2e::run({"tar", "xzf", archive, "-C", tmp.path});
  REQUIRE_MESSAGE(x.rc == 0, x.err);
  const fs::path root = top_folder(tmp.path);
  json summary = json::parse(slurp(root / "summary.json"));
  CHECK(summary["complete"] == false);
  bool etcd_error = false;
  for (const auto& e : summary["errors"]) etcd_error = etcd_error || e.get<std::string>().rfind("etcd/", 0) == 0;
  CHECK(etcd_error);
  // The objects are there all the same.
  CHECK(fs::exists(root / "kube/etcdcluster.yaml"));
  CHECK(fs::exists(root / "kube/etcdmembers.yaml"));
  no_secret_in(root, secret_values(c));
}
