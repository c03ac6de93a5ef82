#include "http/curl_error.h"

namespace http {

base::Error curl_error(CURLcode rc, bool started, std::string message, std::string object) {
  base::Error e;
  e.object = std::move(object);
  e.message = std::move(message);
  e.kind = base::ErrorKind::CannotConnect;
  e.reason = started ? kReasonTransportFailed : kReasonConnectFailed;
  const std::string error = curl_easy_strerror(rc);
  switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
      e.reason = kReasonConnectFailed;
      e.message = "cannot connect: " + error;
      break;
    case CURLE_OPERATION_TIMEDOUT:
      // Before the request went out, a timeout is a server that never
      // answered the connection; after, a server that stopped answering.
      if (started) e.kind = base::ErrorKind::Timeout;
      e.reason = started ? kReasonTimeout : kReasonConnectFailed;
      e.message = "request timed out: " + error;
      break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ISSUER_ERROR:
      e.reason = kReasonTLS;
      e.message = "TLS failed: " + error;
      break;
    default:
      break;
  }
  return e;
}

}  // namespace http
