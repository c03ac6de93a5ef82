#include "kube/watch.h"

#include <doctest/doctest.h>

#include "kube/exec_credential.h"

TEST_CASE("watch events are parsed across arbitrary chunk boundaries") {
  std::string stream =
      "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n"
      "{\"type\":\"MODIFIED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n\n"
      "{\"type\":\"DELETED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n";
  for (size_t chunk : {1, 7, 1000}) {
    kube::WatchDecoder d;
    std::vector<std::string> types;
    for (size_t i = 0; i < stream.size(); i += chunk) {
      REQUIRE(d.feed(stream.substr(i, chunk), [&](kube::WatchEvent&& e) {
        types.push_back(e.type);
        return true;
      }));
    }
    CHECK(types == std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"});
  }
  kube::WatchDecoder bad;
  CHECK_FALSE(bad.feed("not json\n", [](kube::WatchEvent&&) { return true; }));
  CHECK_FALSE(bad.error().empty());
}

TEST_CASE("wait predicates") {
  nlohmann::json o = {{"status", {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
  CHECK(kube::condition_is("Ready")(&o));
  CHECK_FALSE(kube::condition_is("Ready", "False")(&o));
  CHECK_FALSE(kube::condition_is("Ready")(nullptr));
  CHECK(kube::is_gone()(nullptr));
  CHECK(kube::field_equals("/status/phase", "Running")(&o));
  CHECK(kube::field_differs("/status/phase", "Pending")(&o));
  CHECK_FALSE(kube::field_differs("/status/phase", "Running")(&o));
}

TEST_CASE("an ExecCredential expiring in 9999 does not expire (found by fuzz-exec-credential)") {
  const char* far = R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                        "status":{"token":"t","expirationTimestamp":"9999-12-31T23:59:59Z"}})";
  auto c = kube::parse_exec_credential(far, "client.authentication.k8s.io/v1");
  REQUIRE(c.ok());
  REQUIRE(c->expiration.has_value());
  CHECK(*c->expiration > std::chrono::system_clock::now());
}

TEST_CASE("an ExecCredential with a field of the wrong type is an error, not a crash (found by fuzz-exec-credential)") {
  // The fuzzer's input: apiVersion is an object.
  auto c = kube::parse_exec_credential(
      R"({"kind": "ExecCredential", "apiVersion": {"[inteTimestamp": "9999-12-3312T:59:59Z"}})",
      "client.authentication.k8s.io/v1");
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().one_line().find("apiVersion \"\"") != std::string::npos);
  CHECK_FALSE(kube::parse_exec_credential(R"({"kind": 1})", "client.authentication.k8s.io/v1").ok());
  auto token = kube::parse_exec_credential(
      R"({"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1","status":{"token":5}})",
      "client.authentication.k8s.io/v1");
  REQUIRE_FALSE(token.ok());
  CHECK(token.error().one_line().find("neither a token") != std::string::npos);
}

TEST_CASE("ExecCredential parsing: versions, expiry, errors") {
  const char* v1 = R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
                       "status":{"token":"t","expirationTimestamp":"2030-01-02T03:04:05Z"}})";
  auto c = kube::parse_exec_credential(v1, "client.authentication.k8s.io/v1");
  REQUIRE(c.ok());
  CHECK(c->token == "t");
  REQUIRE(c->expiration.has_value());
  CHECK(std::chrono::system_clock::to_time_t(*c->expiration) == 1893553445);
  auto wrong = kube::parse_exec_credential(v1, "client.authentication.k8s.io/v1beta1");
  REQUIRE_FALSE(wrong.ok());
  CHECK(wrong.error().one_line().find("apiVersion") != std::string::npos);
  CHECK_FALSE(kube::parse_exec_credential("{}", "x").ok());
  CHECK_FALSE(kube::parse_exec_credential(R"({"apiVersion":"v","kind":"ExecCredential","status":{}})", "v").ok());
}

TEST_CASE("KUBERNETES_EXEC_INFO carries interactive and, when asked, the cluster") {
  kube::ExecConfig c;
  c.api_version = "client.authentication.k8s.io/v1";
  c.provide_cluster_info = true;
  auto j = nlohmann::json::parse(kube::exec_info_json(c, {"https://h", "", false, "CA"}, false));
  CHECK(j["spec"]["interactive"] == false);
  CHECK(j["spec"]["cluster"]["server"] == "https://h");
  CHECK(j["spec"]["cluster"]["certificate-authority-data"] == "Q0E=");
}
