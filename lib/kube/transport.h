// HTTPS to one apiserver over libcurl: one connection pool per transport (a
// curl share handle holding connections, DNS and TLS sessions, plus a pool of
// easy handles), HTTP/2 when offered, keep-alive; safe from several threads.
// It does one exchange per call (no retries: see Client) and knows TLS and
// credentials, so that later users (port-forward) can reuse it.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/result.h"
#include "kube/config.h"
#include "kube/credentials.h"

namespace kube {

struct HttpRequest {
  std::string method = "GET";
  std::string path;  // "/api/v1/pods?x=y": appended to the server URL (and its path prefix)
  std::string body;
  std::string content_type;  // default application/json when there is a body
  std::chrono::milliseconds timeout{0};  // 0: the transport's default
  // Streaming: a successful (2xx) response body goes here chunk by chunk
  // instead of into HttpResponse::body; returning false ends the transfer.
  std::function<bool(std::string_view)> on_data;
};

struct HttpResponse {
  int status = 0;
  std::string body;
  std::optional<std::chrono::seconds> retry_after;
  bool stopped_by_reader = false;  // on_data returned false
  int http_version = 0;  // 1 (HTTP/1.x) or 2
};

// One line of the -v request log: never headers, bodies or credentials.
struct RequestLogEntry {
  std::string method;
  std::string path;  // query kept, credential-like parameters redacted
  int status = 0;    // 0: no HTTP answer
  std::chrono::milliseconds duration{0};
  std::string error;  // transport failure, if any
};
using RequestLogSink = std::function<void(const RequestLogEntry&)>;

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{10000};
  std::chrono::milliseconds request_timeout{60000};  // default per request; 0 = none
  std::string user_agent = "etcd-operator-cli";
  RequestLogSink log;  // may be empty
};

struct TransportStats {
  uint64_t requests = 0;
  uint64_t connections = 0;  // new connections, each with its own TLS handshake
  uint64_t http2 = 0;        // requests that went over HTTP/2
};

// Error reasons of transport failures (cli::Error::reason), so that retries
// can tell "never reached the server" from "broke on the way".
inline constexpr const char* kReasonConnectFailed = "ConnectFailed";
inline constexpr const char* kReasonTransportFailed = "TransportFailed";
inline constexpr const char* kReasonTimeout = "Timeout";
inline constexpr const char* kReasonTLS = "TLSFailed";

class Transport {
 public:
  static cli::Result<std::shared_ptr<Transport>> create(const RestConfig& config, TransportOptions options = {});
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  cli::Result<HttpResponse> perform(const HttpRequest& request);

  const RestConfig& config() const { return config_; }
  Credentials& credentials() { return credentials_; }
  TransportStats stats() const { return {requests_.load(), connections_.load(), http2_.load()}; }
  void set_log(RequestLogSink log);

 private:
  Transport(RestConfig config, TransportOptions options);
  void* take_handle();
  void give_back(void* handle);

  struct Share;
  RestConfig config_;
  TransportOptions options_;
  Credentials credentials_;
  std::unique_ptr<Share> share_;
  std::string url_base_;   // scheme://host:port/prefix, host swapped for tls-server-name
  std::string connect_to_;  // CURLOPT_CONNECT_TO entry when tls-server-name is set
  std::mutex pool_mu_;
  std::vector<void*> pool_;
  std::mutex log_mu_;
  std::atomic<uint64_t> requests_{0};
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> http2_{0};
};

}  // namespace kube
