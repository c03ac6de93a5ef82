#include "admin/bundle_redact.h"

#include <doctest/doctest.h>

#include "kube/base64.h"

using nlohmann::json;

namespace {

const std::string kPassword = "hunter2-very-secret";

json secret() {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata",
           {{"name", "etcd-root-credentials"},
            {"namespace", "ns"},
            {"managedFields", json::array({{{"manager", "kubectl"}}})},
            {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", "{\"data\":{}}"}}}}},
          {"type", "kubernetes.io/basic-auth"},
          {"data", {{"username", kube::base64_encode("root")}, {"password", kube::base64_encode(kPassword)}}}};
}

}  // namespace

TEST_CASE("a Secret keeps its name, type and key names, never a value") {
  json s = admin::secret_summary(secret());
  CHECK(s["metadata"]["name"] == "etcd-root-credentials");
  CHECK(s["type"] == "kubernetes.io/basic-auth");
  CHECK(s["keys"] == json::array({"password", "username"}));
  CHECK_FALSE(s.contains("data"));
  CHECK_FALSE(s["metadata"].contains("annotations"));
  const std::string dump = s.dump();
  CHECK(dump.find(kPassword) == std::string::npos);
  CHECK(dump.find(kube::base64_encode(kPassword)) == std::string::npos);
  CHECK(admin::redact(secret(), {}) == s);
  CHECK(admin::secret_summary(s) == s);  // a list of summaries passes redact() unchanged
}

TEST_CASE("the values of the namespace's Secrets, decoded and as stored") {
  json items = json::array({secret(), {{"stringData", {{"token", "plain-token-value"}}}}, {{"data", {{"empty", ""}}}}});
  auto v = admin::secret_values(items);
  auto has = [&](const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); };
  CHECK(has(kPassword));
  CHECK(has(kube::base64_encode(kPassword)));
  CHECK(has("root"));
  CHECK(has("plain-token-value"));
  CHECK(has(kube::base64_encode("plain-token-value")));
  CHECK_FALSE(has(""));
}

TEST_CASE("objects lose managed fields, last-applied copies, credential-like env values and Secret values") {
  json pod = {
      {"kind", "Pod"},
      {"metadata",
       {{"name", "etcd-0"},
        {"managedFields", json::array({{{"manager", "x"}}})},
        {"annotations", {{"kubectl.kubernetes.io/last-applied-configuration", "{...}"}, {"keep", "me"}}}}},
      {"spec",
       {{"containers",
         json::array({{{"name", "etcd"},
                       {"args", json::array({"--password=" + kPassword, "--name=etcd-0"})},
                       {"env", json::array({{{"name", "ETCD_ROOT_PASSWORD"}, {"value", "literal-pass"}},
                                            {{"name", "ETCD_NAME"}, {"value", "etcd-0"}},
                                            {{"name", "FROM_SECRET"},
                                             {"valueFrom", {{"secretKeyRef", {{"name", "s"}, {"key", "password"}}}}}},
                                            {{"name", "USER"}, {"value", "root"}}})}}})}}},
      {"status", {{"message", "user rootless saw " + kube::base64_encode(kPassword)}}}};
  auto values = admin::secret_values(json::array({secret()}));
  json r = admin::redact(pod, values);
  CHECK_FALSE(r["metadata"].contains("managedFields"));
  CHECK(r["metadata"]["annotations"] == json{{"keep", "me"}});
  const json& c = r["spec"]["containers"][0];
  CHECK(c["args"][0] == admin::kRedacted);
  CHECK(c["args"][1] == "--name=etcd-0");
  CHECK(c["env"][0]["value"] == admin::kRedacted);
  CHECK(c["env"][1]["value"] == "etcd-0");
  CHECK(c["env"][2]["valueFrom"]["secretKeyRef"]["key"] == "password");
  // "root" is short: only a whole string equal to it goes, not every string containing it.
  CHECK(c["env"][3]["value"] == admin::kRedacted);
  CHECK(r["status"]["message"] == admin::kRedacted);
  json list = {{"kind", "List"}, {"items", json::array({pod})}};
  CHECK(admin::redact(list, values)["items"][0] == r);
  json s = {{"a", "rootCredentialsSecretRef"}};
  CHECK(admin::redact(s, values) == s);
}
