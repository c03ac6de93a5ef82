// Golden tests of the translation: every case under cases/ is a legacy
// EtcdCluster as stored, the live facts, the flags, and the verdict ids a
// reader of docs/adoption-verdicts.md expects (written by hand). The whole plan, objects
// included, is compared with cases/<case>.out.json, reviewed when written
// (GOLDEN_UPDATE=1 rewrites them).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "migrate/cluster_plan.h"
#include "migrate/translate.h"

using json = nlohmann::json;

namespace {

const std::filesystem::path kCases = std::filesystem::path(SOURCE_ROOT) / "tests/unit/migrate/cases";

migrate::ClusterFacts facts_from(const json& j) {
  migrate::ClusterFacts f;
  if (j.contains("inspectError")) f.inspect_error = j["inspectError"].get<std::string>();
  f.cluster_id = j.value("clusterID", "");
  for (const auto& m : j.value("members", json::array())) {
    f.members.push_back({m.value("name", ""), m.value("id", ""), m.value("peerURL", ""), m.value("isLearner", false)});
  }
  f.live_auth = j.value("liveAuth", false);
  const json pods = j.value("pods", json::object()), pvcs = j.value("pvcs", json::object()),
             new_members = j.value("newMembers", json::object());
  for (const auto& [name, p] : pods.items()) {
    f.pods[name] = {p.value("uid", ""), p.value("running", false), p.value("ready", false), p.value("deleting", false)};
  }
  for (const auto& [name, p] : pvcs.items()) {
    f.pvcs[name] = {p.value("found", false), p.value("error", ""), p.value("controllerKind", ""),
                    p.value("controllerName", ""), ""};
  }
  if (j.contains("newCluster")) f.new_cluster = j["newCluster"];
  for (const auto& [name, m] : new_members.items()) f.new_members[name] = m;
  if (j.contains("serviceC")) f.service_c = j["serviceC"];
  if (j.contains("serviceCS")) f.service_cs = j["serviceCS"];
  std::string a = j.value("authSecret", "NotGiven");
  f.auth_secret = a == "Usable"       ? migrate::ClusterFacts::AuthSecret::Usable
                  : a == "Missing"    ? migrate::ClusterFacts::AuthSecret::Missing
                  : a == "NoPassword" ? migrate::ClusterFacts::AuthSecret::NoPassword
                                      : migrate::ClusterFacts::AuthSecret::NotGiven;
  f.root_secret_exists = j.value("rootSecretExists", false);
  // What cert_check found in the legacy TLS Secrets: one finding per entry.
  for (const auto& c : j.value("certificates", json::array())) {
    admin::CertFinding finding;
    finding.source = {c.value("role", ""), c.value("secret", ""), c.value("caSecret", "")};
    for (const auto& p : c.value("problems", json::array())) {
      finding.problems.push_back({p.value("code", ""), p.value("severity", ""), p.value("message", "")});
    }
    f.certificates.push_back(finding);
  }
  f.certificates_error = j.value("certificatesError", "");
  const json cas = j.value("secretCAs", json::object());
  for (const auto& [name, pem] : cas.items()) f.secret_cas[name] = pem.get<std::string>();
  return f;
}

migrate::PlanOptions options_from(const json& j) {
  migrate::PlanOptions o;
  o.version_override = j.value("version", "");
  o.auth_secret = j.value("authSecret", "");
  o.skip_backup = j.value("skipBackup", false);
  o.backup_configured = j.value("backupConfigured", false);
  o.replace_client_service = j.value("replaceClientService", false);
  return o;
}

json load(const std::filesystem::path& p) {
  std::ifstream f(p);
  REQUIRE_MESSAGE(f.good(), "cannot read " << p);
  return json::parse(f);
}

migrate::ClusterPlan plan_of(const json& c) {
  return migrate::plan_cluster(op::LegacyCluster::from(c["legacy"]), facts_from(c["facts"]), options_from(c["options"]));
}

std::vector<std::string> ids(const migrate::ClusterPlan& p) {
  std::vector<std::string> v;
  for (const auto& x : p.verdicts) v.push_back(x.id);
  return v;
}

}  // namespace

TEST_CASE("the corpus covers at least 25 legacy specs") {
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(kCases)) {
    if (e.path().string().ends_with(".in.json")) ++n;
  }
  CHECK(n >= 25);
}

TEST_CASE("every golden case: verdict ids as expected, plan as recorded") {
  std::vector<std::filesystem::path> inputs;
  for (const auto& e : std::filesystem::directory_iterator(kCases)) {
    if (e.path().string().ends_with(".in.json")) inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  bool update = std::getenv("GOLDEN_UPDATE") != nullptr;
  for (const auto& in : inputs) {
    std::string name = in.filename().string();
    name = name.substr(0, name.size() - std::string(".in.json").size());
    CAPTURE(name);
    json c = load(in);
    auto plan = plan_of(c);
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : ",") + x;
      return s;
    };
    CHECK(join(ids(plan)) == join(c["expectIDs"].get<std::vector<std::string>>()));
    json actual = json::parse(migrate::to_json(plan).dump());
    auto out = kCases / (name + ".out.json");
    if (update) {
      std::ofstream(out) << actual.dump(2) << "\n";
      continue;
    }
    json expected = load(out);
    CHECK_MESSAGE(actual == expected, "plan differs from " << out << ":\n" << json::diff(expected, actual).dump(2));
  }
}

TEST_CASE("the worked example of an adoption plan (testdata golden) is reproduced exactly") {
  auto plan = plan_of(load(kCases / "02-worked-example.in.json"));
  REQUIRE(plan.action == migrate::ClusterAction::Adopt);
  json expected = json::parse(R"({"apiVersion":"etcd-operator.cozystack.io/v1alpha2","kind":"EtcdCluster",
   "metadata":{"name":"etcd","namespace":"tenant-a",
     "annotations":{"etcd-operator.cozystack.io/peer-auto-tls":"true"}},
   "spec":{"replicas":3,"version":"3.5.12",
     "storage":{"size":"10Gi","storageClassName":"replicated"},
     "resources":{},
     "options":{"quotaBackendBytes":10200547328,"autoCompactionMode":"periodic",
                "autoCompactionRetention":"5m","snapshotCount":10000},
     "tls":{"client":{"serverSecretRef":{"name":"etcd-server-tls"},
                      "operatorClientSecretRef":{"name":"etcd-client-tls"}}},
     "auth":{"enabled":true,"rootCredentialsSecretRef":{"name":"etcd-root-credentials"}}}})");
  // This project adds its adoption marker (docs/rules.md#our-annotation-keys) to the reference's object.
  expected["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/adopted-from"] =
      "0b5f3a2e-6c1d-4e8a-9f00-000000000001";
  CHECK(json::parse(plan.cluster.dump()) == expected);
  REQUIRE(plan.root_secret.has_value());
  CHECK((*plan.root_secret)["metadata"]["name"] == "etcd-root-credentials");
  CHECK_FALSE((*plan.root_secret)["stringData"].contains("password"));  // docs/rules.md#root-password-never-printed
}

TEST_CASE("members: name order, owner, labels, reserved annotations, initialCluster, status prefill") {
  auto plan = plan_of(load(kCases / "23-service-overrides.in.json"));
  REQUIRE(plan.members.size() == 3);
  json m1 = json::parse(plan.members[1].dump());
  CHECK(m1["metadata"]["name"] == "etcd-1");
  CHECK(m1["metadata"]["labels"].size() == 5);
  CHECK(m1["metadata"]["labels"]["app.kubernetes.io/component"] == "etcd-1");
  CHECK(m1["metadata"]["annotations"] ==
        json({{"etcd-operator.cozystack.io/headless-service-name", "etcd-peers"},
              {"etcd-operator.cozystack.io/data-dir-subpath", "default.etcd"}}));
  CHECK(m1["metadata"]["ownerReferences"][0]["kind"] == "EtcdCluster");
  CHECK(m1["metadata"]["ownerReferences"][0]["controller"] == true);
  CHECK(m1["spec"]["initialCluster"] ==
        "etcd-0=https://etcd-0.etcd-peers.tenant-a.svc:2380,etcd-1=https://etcd-1.etcd-peers.tenant-a.svc:2380,"
        "etcd-2=https://etcd-2.etcd-peers.tenant-a.svc:2380");
  CHECK(m1["spec"]["clusterToken"] == "etcd-tenant-a");
  CHECK(m1["spec"]["replicas"] == 1);
  CHECK(m1["spec"]["tls"] == json({{"peerAutoTLS", true}}));
  CHECK(json::parse(plan.member_statuses[1].dump()) ==
        json({{"memberID", "1c0ddf9e0d2a7c2b"}, {"podName", "etcd-1"}, {"podUID", "pod-uid-1"},
              {"pvcName", "data-etcd-1"}, {"isVoter", true}}));
  json st = json::parse(plan.cluster_status.dump());
  CHECK(st["clusterID"] == "cdf818194e3a8c32");
  CHECK(st["clusterToken"] == "etcd-tenant-a");
  CHECK(st["observed"]["replicas"] == 3);
  CHECK(st["observed"]["storage"] == json({{"size", "4Gi"}}));
}

TEST_CASE("implicit legacy flags written when absent; 4Gi gives quota 4080218931") {
  auto plan = plan_of(load(kCases / "01-defaults.in.json"));
  json o = json::parse(plan.cluster["spec"]["options"].dump());
  CHECK(o == json({{"autoCompactionRetention", "5m"}, {"snapshotCount", 10000}, {"quotaBackendBytes", 4080218931LL}}));
}

TEST_CASE("additionalMetadata labels reach members, reserved keys do not") {
  auto plan = plan_of(load(kCases / "22-pod-template.in.json"));
  json labels = json::parse(plan.members[0]["metadata"]["labels"].dump());
  CHECK(labels["team"] == "db");
  CHECK_FALSE(labels.contains("etcd-operator.cozystack.io/x"));
  json spec = json::parse(plan.cluster["spec"].dump());
  CHECK(spec["resources"] == json::parse(R"({"limits":{"memory":"2Gi"},"requests":{"cpu":"500m","memory":"1Gi"}})"));
  CHECK(spec["version"] == "3.5.21");
}

TEST_CASE("a blocked plan carries no objects") {
  auto plan = plan_of(load(kCases / "08-empty-dir.in.json"));
  CHECK(plan.blocked());
  CHECK(plan.members.empty());
  CHECK_FALSE(migrate::to_json(plan).contains("objects"));
}

TEST_CASE("W8, W9, W11 advise copying a CA only into a Secret whose ca.crt lacks it") {
  const std::string ca1 = "-----BEGIN CERTIFICATE-----\nQ0Ex\n-----END CERTIFICATE-----\n";
  const std::string ca2 = "-----BEGIN CERTIFICATE-----\nQ0Ey\n-----END CERTIFICATE-----\n";
  const std::string ca3 = "-----BEGIN CERTIFICATE-----\nQ0Ez\n-----END CERTIFICATE-----\n";
  json c = load(kCases / "27-peer-tls.in.json");
  auto& tls = c["legacy"]["spec"]["security"]["tls"];
  tls["serverTrustedCASecret"] = "etcd-server-ca";
  tls["clientTrustedCASecret"] = "etcd-client-ca";
  auto has = [](const migrate::ClusterPlan& p, const std::string& id) {
    auto v = ids(p);
    return std::find(v.begin(), v.end(), id) != v.end();
  };
  // Nothing known about the Secrets' content: every copy is advised.
  auto unknown = plan_of(c);
  CHECK(has(unknown, "W8"));
  CHECK(has(unknown, "W9"));
  CHECK(has(unknown, "W11"));
  // The server Secret's ca.crt already holds both CAs (a bundle, wrapped
  // differently); the peer Secret's lacks the peer CA.
  c["facts"]["secretCAs"] = {{"etcd-server-tls", ca3 + "-----BEGIN CERTIFICATE-----\nQ0\nEx\n-----END CERTIFICATE-----\n" + ca2},
                             {"etcd-server-ca", ca1},
                             {"etcd-client-ca", ca2},
                             {"etcd-peer-tls", ca3},
                             {"etcd-peer-ca", ca1}};
  auto held = plan_of(c);
  CHECK_FALSE(has(held, "W8"));
  CHECK_FALSE(has(held, "W9"));
  CHECK(has(held, "W11"));
  // Once the peer Secret holds it too, nothing is advised.
  c["facts"]["secretCAs"]["etcd-peer-tls"] = ca3 + ca1;
  CHECK_FALSE(has(plan_of(c), "W11"));
  // A CA Secret without any certificate is not "held".
  CHECK_FALSE(migrate::pem_holds_all(ca1, ""));
  CHECK(migrate::pem_holds_all(ca1 + ca2, ca2));
}
