#include "kube/redact.h"

#include <doctest/doctest.h>

#include "kube/base64.h"

TEST_CASE("query values that can carry credentials are redacted") {
  CHECK(kube::redact_query("/api/v1/pods?limit=5&access_token=abc&continue=xyz") ==
        "/api/v1/pods?limit=5&access_token=REDACTED&continue=xyz");
  CHECK(kube::redact_query("/p?password=x&Token=y") == "/p?password=REDACTED&Token=REDACTED");
  CHECK(kube::redact_query("/api/v1/namespaces/ns/secrets/s") == "/api/v1/namespaces/ns/secrets/s");
}

TEST_CASE("quoted invalid values are redacted, escapes included") {
  CHECK(kube::redact_invalid_values(R"(data: Invalid value: "s3cr\"et": bad; x: Invalid value: "y")") ==
        R"(data: Invalid value: "REDACTED": bad; x: Invalid value: "REDACTED")");
}

TEST_CASE("base64 round trip and rejects") {
  CHECK(kube::base64_encode("PEM-CA") == "UEVNLUNB");
  CHECK(kube::base64_encode("ab") == "YWI=");
  CHECK(kube::base64_decode("YWI=").value() == "ab");
  CHECK(kube::base64_decode("YW\nI").value() == "ab");
  CHECK_FALSE(kube::base64_decode("!!").has_value());
}
