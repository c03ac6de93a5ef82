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
#include <cstddef>
#include <vector>

#include "base/result.h"
#include "kube/config.h"
#include "kube/credentials.h"

struct curl_slist;

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


// A connection to the apiserver for a protocol libcurl does not speak
// (WebSocket): TCP, proxy tunnel and TLS made exactly as for every request
// of the transport (libcurl CONNECT_ONLY), then raw bytes. One thread
// drives it at a time.
class RawConnection {
 public:
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  int socket() const { return fd_; }
  // Bytes taken (perhaps fewer than given); 0 when the socket would block.
  base::Result<std::size_t> send(std::string_view data);
  // Bytes read into buf; 0 with *closed false when nothing is there yet,
  // with *closed true when the server closed the connection.
  base::Result<std::size_t> recv(char* buf, std::size_t size, bool* closed);

  const std::string& host() const { return host_; }          // for the Host header
  const std::string& path_prefix() const { return prefix_; }  // the server URL's path
  // "Authorization: Bearer ..." when the credentials are a token (else
  // empty), and the User-Agent line. Contains a secret: never log it.
  std::vector<std::string> headers() const;

 private:
  friend class Transport;
  RawConnection() = default;
  void* handle_ = nullptr;
  int fd_ = -1;
  std::string host_;
  std::string prefix_;
  std::string authorization_;
  std::string user_agent_;
  std::string object_;  // for errors
};

class Transport {
 public:
  static base::Result<std::shared_ptr<Transport>> create(const RestConfig& config, TransportOptions options = {});
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  base::Result<HttpResponse> perform(const HttpRequest& request);
  // A new connection of its own (never pooled), set up within `timeout`.
  base::Result<std::unique_ptr<RawConnection>> connect_raw(std::chrono::milliseconds timeout);
  // Adds a line to the -v request log (for exchanges made over a RawConnection).
  void log_request(const RequestLogEntry& entry);

  const RestConfig& config() const { return config_; }
  Credentials& credentials() { return credentials_; }
  TransportStats stats() const { return {requests_.load(), connections_.load(), http2_.load()}; }
  void set_log(RequestLogSink log);

 private:
  Transport(RestConfig config, TransportOptions options);
  void* take_handle();
  // The options every connection shares; returns the CONNECT_TO list to free.
  curl_slist* connection_options(void* handle, const AuthMaterial& auth) const;
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
