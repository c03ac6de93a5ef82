#include "http/curl_error.h"

#include <doctest/doctest.h>

TEST_CASE("curl failures: kind and reason tell never-reached from broke-on-the-way") {
  auto refused = http::curl_error(CURLE_COULDNT_CONNECT, false, "GET failed", "server \"x\"");
  CHECK(refused.kind == base::ErrorKind::CannotConnect);
  CHECK(refused.reason == http::kReasonConnectFailed);
  CHECK(refused.message.rfind("cannot connect: ", 0) == 0);
  CHECK(refused.object == "server \"x\"");
  CHECK(refused.hint.empty());

  auto slow_dial = http::curl_error(CURLE_OPERATION_TIMEDOUT, false, "GET failed", "o");
  CHECK(slow_dial.kind == base::ErrorKind::CannotConnect);
  CHECK(slow_dial.reason == http::kReasonConnectFailed);
  auto stalled = http::curl_error(CURLE_OPERATION_TIMEDOUT, true, "GET failed", "o");
  CHECK(stalled.kind == base::ErrorKind::Timeout);
  CHECK(stalled.reason == http::kReasonTimeout);

  for (CURLcode tls : {CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE}) {
    auto e = http::curl_error(tls, false, "GET failed", "o");
    CHECK(e.kind == base::ErrorKind::CannotConnect);
    CHECK(e.reason == http::kReasonTLS);
    CHECK(e.message.rfind("TLS failed: ", 0) == 0);
  }

  auto lost = http::curl_error(CURLE_RECV_ERROR, true, "PUT failed: boom", "o");
  CHECK(lost.kind == base::ErrorKind::CannotConnect);
  CHECK(lost.reason == http::kReasonTransportFailed);
  CHECK(lost.message == "PUT failed: boom");
  CHECK(http::curl_error(CURLE_RECV_ERROR, false, "m", "o").reason == http::kReasonConnectFailed);
}
