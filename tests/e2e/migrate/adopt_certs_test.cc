// Certificates before an adoption (docs/certificates.md), on legacy TLS
// fixtures: `kubectl-etcd certs` and the plan of `etcd-migrate adopt` agree.
// Certificates listing only today's members are flagged (W23, with the
// fix); wildcard ones are clean and `certs -o json` has its documented
// shape; a certificate expiring within 30 days warns (W24) and an expired
// one (signed here with openssl by the fixture's CA) blocks the plan (B21,
// exit 3). No output ever carries a tls.key.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <regex>

#include "kube/base64.h"
#include "migrate_e2e.h"

using json = nlohmann::json;

namespace {

e2e::CommandResult certs(const e2e::LegacyFixture& f, const std::vector<std::string>& extra) {
  const char* bin = std::getenv("KUBECTL_ETCD");
  REQUIRE_MESSAGE(bin != nullptr, "KUBECTL_ETCD is not set");
  std::vector<std::string> argv = {bin, "certs", "-n", f.ns(), "-c", f.name()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return e2e::run(argv, {{"KUBECONFIG", e2e::var("KUBECONFIG")}, {"NO_COLOR", "1"}});
}

json certs_json(const e2e::LegacyFixture& f, int expected_rc) {
  auto r = certs(f, {"-o", "json"});
  INFO("stderr: " << r.err);
  CHECK(r.rc == expected_rc);
  json doc = json::parse(r.out, nullptr, false);
  REQUIRE_MESSAGE(!doc.is_discarded(), "certs -o json is not JSON: " << r.out);
  return doc;
}

const json* certificate(const json& doc, const std::string& role) {
  for (const auto& c : doc["certificates"]) {
    if (c["role"] == role) return &c;
  }
  return nullptr;
}

std::vector<std::string> messages(const json& plan, const std::string& id) {
  std::vector<std::string> out;
  for (const auto& v : plan["verdicts"]) {
    if (v["id"] == id) out.push_back(v["message"]);
  }
  return out;
}

// Every tls.key (and ca.key) of the namespace, as stored and decoded.
std::vector<std::string> keys_of(const std::string& ns) {
  std::vector<std::string> out;
  json list = json::parse(e2e::kubectl({"-n", ns, "get", "secrets", "-o", "json"}));
  for (const auto& s : list["items"]) {
    if (!s.contains("data")) continue;
    for (const auto& [k, v] : s["data"].items()) {
      if (k.find("key") == std::string::npos) continue;
      out.push_back(v.get<std::string>());
      auto decoded = kube::base64_decode(v.get<std::string>());
      REQUIRE(decoded);
      out.push_back(*decoded);
      // A PEM's body line by line: a printed key would carry these.
      std::istringstream lines(*decoded);
      for (std::string line; std::getline(lines, line);) {
        if (line.size() >= 40 && line.find("-----") == std::string::npos) out.push_back(line);
      }
    }
  }
  REQUIRE_FALSE(out.empty());
  return out;
}

void no_key_in(const std::vector<std::string>& keys, const std::string& text, const std::string& what) {
  for (const auto& k : keys) CHECK_MESSAGE(text.find(k) == std::string::npos, what << " carries key material");
}

std::string utc(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%SZ", &tm);
  return buf;
}

// A certificate for `cn` signed by the fixture's CA, valid from `start` to
// `end`, with the wildcard names (so only its dates are wrong).
std::string signed_cert(const e2e::LegacyFixture& f, const std::string& dir, const std::string& cn, std::time_t start,
                        std::time_t end) {
  auto env = f.etcd_env();
  const std::string ca = env["ETCD_CACERT"], ca_key = env["ETCD_CA_KEY"];
  REQUIRE_FALSE(ca_key.empty());
  std::filesystem::create_directories(dir + "/newcerts");
  std::ofstream(dir + "/index.txt").close();
  std::ofstream(dir + "/serial") << "1000\n";
  std::ofstream(dir + "/ca.cnf") << "[ca]\ndefault_ca = x\n[x]\ndir = " << dir
                                 << "\ndatabase = $dir/index.txt\nnew_certs_dir = $dir/newcerts\nserial = $dir/serial\n"
                                    "default_md = sha256\npolicy = any\nunique_subject = no\nx509_extensions = ext\n"
                                    "[any]\ncommonName = supplied\n[ext]\nsubjectAltName = DNS:*.etcd."
                                 << f.ns() << ".svc\nextendedKeyUsage = serverAuth,clientAuth\n";
  auto req = e2e::run({"openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                       dir + "/" + cn + ".key", "-out", dir + "/" + cn + ".csr", "-subj", "/CN=" + cn});
  REQUIRE_MESSAGE(req.rc == 0, req.err);
  auto sign = e2e::run({"openssl", "ca", "-batch", "-config", dir + "/ca.cnf", "-cert", ca, "-keyfile", ca_key, "-in",
                        dir + "/" + cn + ".csr", "-out", dir + "/" + cn + ".crt", "-startdate", utc(start), "-enddate",
                        utc(end), "-notext"});
  REQUIRE_MESSAGE(sign.rc == 0, sign.err);
  std::ifstream in(dir + "/" + cn + ".crt");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void put_cert(const e2e::LegacyFixture& f, const std::string& secret, const std::string& pem) {
  json patch = {{"data", {{"tls.crt", kube::base64_encode(pem)}}}};
  e2e::kubectl({"-n", f.ns(), "patch", "secret", secret, "--type=merge", "-p", patch.dump()});
}

}  // namespace

TEST_CASE("certificates naming only today's members: certs flags them, the plan warns with the fix") {
  e2e::Namespace ns("e2e-certs-exact");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--replicas", "3", "--tls", "--exact-sans"});
  const std::string future = "etcd-00000.etcd." + ns.name() + ".svc";
  const std::string wildcard = "*.etcd." + ns.name() + ".svc";

  json doc = certs_json(f, 1);
  CHECK(doc["apiVersion"] == "etcd.aenix.io/v1alpha1");
  CHECK(doc["hosts"]["future"] == future);
  for (const char* role : {"server", "peer"}) {
    const json* c = certificate(doc, role);
    REQUIRE_MESSAGE(c, role);
    CHECK((*c)["coverage"]["today"] == true);
    CHECK((*c)["coverage"]["future"] == false);
    CHECK((*c)["chain"]["verified"] == true);
    bool flagged = false;
    for (const auto& p : (*c)["problems"]) {
      if (p["code"] == "san-future") {
        flagged = true;
        CHECK(p["message"].get<std::string>().find(wildcard) != std::string::npos);
        CHECK(p["message"].get<std::string>().find("cert-manager") != std::string::npos);
      }
    }
    CHECK_MESSAGE(flagged, role << " certificate not flagged");
  }

  int rc = -1;
  json plan_doc = e2e::adopt_plan(f, {}, rc);
  CHECK(rc == 0);  // a warning: the adoption itself works
  json plan = e2e::cluster_plan(plan_doc, ns.name(), "etcd");
  REQUIRE(plan.is_object());
  INFO("verdicts: " << plan["verdicts"].dump());
  auto w23 = messages(plan, "W23");
  CHECK(w23.size() == 2);  // server and peer
  for (const auto& m : w23) {
    CHECK(m.find(future) != std::string::npos);
    CHECK(m.find(wildcard) != std::string::npos);
  }
  CHECK_FALSE(e2e::has_verdict(plan, "B21"));

  auto keys = keys_of(ns.name());
  no_key_in(keys, doc.dump(), "certs -o json");
  auto table = certs(f, {"-o", "wide"});
  no_key_in(keys, table.out + table.err, "certs -o wide");
  CHECK(table.out.find("PROBLEMS") != std::string::npos);
  no_key_in(keys, plan_doc.dump(), "the plan");
}

TEST_CASE("wildcard certificates are clean; one expiring soon warns, an expired one blocks the plan") {
  e2e::Namespace ns("e2e-certs-wild");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--replicas", "3", "--tls"});

  json doc = certs_json(f, 0);
  // The documented shape (docs/certificates.md, "Output").
  CHECK(doc["cluster"] == "etcd");
  CHECK(doc["namespace"] == ns.name());
  CHECK(doc["problems"].empty());
  REQUIRE(doc["hosts"]["today"].size() == 3);
  CHECK(doc["hosts"]["today"][0].get<std::string>().rfind("etcd-0.", 0) == 0);
  REQUIRE(doc["certificates"].size() == 3);
  const std::regex rfc3339(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  for (const auto& c : doc["certificates"]) {
    INFO(c.dump());
    for (const char* k : {"role", "secret", "key", "subject", "issuer", "notBefore", "notAfter"}) {
      CHECK(c[k].is_string());
    }
    CHECK(c["key"] == "tls.crt");
    CHECK(c["dnsNames"].is_array());
    CHECK(c["ipAddresses"].is_array());
    CHECK(std::regex_match(c["notAfter"].get<std::string>(), rfc3339));
    CHECK(c["daysLeft"].get<long>() > 30);
    CHECK(c["chain"]["caSecret"] == "etcd-ca-tls");
    CHECK(c["chain"]["verified"] == true);
    CHECK(c["problems"].empty());
    CHECK(c.contains("coverage") == (c["role"] != "client"));
  }
  CHECK((*certificate(doc, "server"))["secret"] == "etcd-server-tls");
  CHECK((*certificate(doc, "peer"))["coverage"]["future"] == true);
  CHECK((*certificate(doc, "client"))["secret"] == "etcd-client-tls");

  int rc = -1;
  json plan = e2e::cluster_plan(e2e::adopt_plan(f, {}, rc), ns.name(), "etcd");
  CHECK(rc == 0);
  for (const char* id : {"W23", "W24", "W25", "B21"}) CHECK_FALSE(e2e::has_verdict(plan, id));

  char tmpl[] = "/tmp/e2e-certs-XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const std::time_t now = std::time(nullptr);
  put_cert(f, "etcd-peer-tls", signed_cert(f, dir, "soon", now - 86400, now + 10 * 86400));
  put_cert(f, "etcd-server-tls", signed_cert(f, dir, "expired", now - 40 * 86400, now - 86400));

  json after = certs_json(f, 1);
  const json* server = certificate(after, "server");
  REQUIRE(server);
  CHECK((*server)["daysLeft"].get<long>() < 0);
  CHECK((*server)["chain"]["verified"] == true);  // signed by the right CA; only its dates are wrong
  CHECK((*server)["problems"][0]["code"] == "expired");
  CHECK((*server)["problems"][0]["severity"] == "blocker");
  CHECK((*certificate(after, "peer"))["problems"][0]["code"] == "expiring");

  json blocked_doc = e2e::adopt_plan(f, {}, rc);
  CHECK(rc == 3);
  json blocked = e2e::cluster_plan(blocked_doc, ns.name(), "etcd");
  INFO("verdicts: " << blocked["verdicts"].dump());
  CHECK(blocked["action"] == "Error");
  auto b21 = messages(blocked, "B21");
  REQUIRE(b21.size() == 1);
  CHECK(b21[0].find("etcd-server-tls") != std::string::npos);
  auto w24 = messages(blocked, "W24");
  REQUIRE(w24.size() == 1);
  CHECK(w24[0].find("etcd-peer-tls") != std::string::npos);
  auto keys = keys_of(ns.name());
  no_key_in(keys, after.dump() + blocked_doc.dump(), "certs and the plan");
  std::filesystem::remove_all(dir);
}
