#include "kube/curl_error.h"

#include <doctest/doctest.h>

TEST_CASE("curl failures: kind and reason tell never-reached from broke-on-the-way") {
  auto refused = kube::curl_error(CURLE_COULDNT_CONNECT, false, "GET failed", "server \"x\"");
  CHECK(refused.kind == cli::ErrorKind::CannotConnect);
  CHECK(refused.reason == kube::kReasonConnectFailed);
  CHECK(refused.message.rfind("cannot connect: ", 0) == 0);
  CHECK(refused.object == "server \"x\"");
  CHECK(refused.hint.empty());

  auto slow_dial = kube::curl_error(CURLE_OPERATION_TIMEDOUT, false, "GET failed", "o");
  CHECK(slow_dial.kind == cli::ErrorKind::CannotConnect);
  CHECK(slow_dial.reason == kube::kReasonConnectFailed);
  auto stalled = kube::curl_error(CURLE_OPERATION_TIMEDOUT, true, "GET failed", "o");
  CHECK(stalled.kind == cli::ErrorKind::Timeout);
  CHECK(stalled.reason == kube::kReasonTimeout);

  for (CURLcode tls : {CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE}) {
    auto e = kube::curl_error(tls, false, "GET failed", "o");
    CHECK(e.kind == cli::ErrorKind::CannotConnect);
    CHECK(e.reason == kube::kReasonTLS);
    CHECK(e.message.rfind("TLS failed: ", 0) == 0);
  }

  auto lost = kube::curl_error(CURLE_RECV_ERROR, true, "PUT failed: boom", "o");
  CHECK(lost.kind == cli::ErrorKind::CannotConnect);
  CHECK(lost.reason == kube::kReasonTransportFailed);
  CHECK(lost.message == "PUT failed: boom");
  CHECK(kube::curl_error(CURLE_RECV_ERROR, false, "m", "o").reason == kube::kReasonConnectFailed);
}
