// A failed libcurl exchange as the library's error: one mapping for every
// libcurl user (the apiserver transport, the S3 client), so that the same
// network failure has the same exit code and reason whichever server it hit.
#pragma once

#include <curl/curl.h>

#include <string>

#include "base/error.h"

namespace http {

// Error reasons of transport failures (base::Error::reason), so that retries
// can tell "never reached the server" from "broke on the way".
inline constexpr const char* kReasonConnectFailed = "ConnectFailed";
inline constexpr const char* kReasonTransportFailed = "TransportFailed";
inline constexpr const char* kReasonTimeout = "Timeout";
inline constexpr const char* kReasonTLS = "TLSFailed";

// `started`: bytes may have reached the server (only reads may be sent
// again). `message` is used when the code has no more specific wording. The
// error has no hint: what to check depends on where the caller got the URL.
base::Error curl_error(CURLcode rc, bool started, std::string message, std::string object);

}  // namespace http
