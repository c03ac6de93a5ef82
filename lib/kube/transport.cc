#include "kube/transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

#include "http/curl_error.h"
#include "http/libcurl.h"
#include "http/receiver.h"
#include "kube/redact.h"

namespace kube {

namespace {

using base::ErrorKind;

curl_blob blob_of(const std::string& s) {
  curl_blob b{};
  b.data = const_cast<char*>(s.data());
  b.len = s.size();
  b.flags = CURL_BLOB_COPY;
  return b;
}

// A failed curl exchange as an error, with the hint that fits a kubeconfig.
base::Error curl_failure(CURLcode rc, bool started, std::string message, std::string object) {
  base::Error e = http::curl_error(rc, started, std::move(message), std::move(object));
  if (e.reason == http::kReasonTLS) {
    e.hint = "check the certificate authority, the client certificate and tls-server-name of the kubeconfig";
  }
  return e;
}

}  // namespace

// The share handle: connections, DNS and TLS sessions of all easy handles of
// this transport, so no request pays a new handshake while a connection is
// idle in the pool. curl asks us to lock each shared data kind.
struct Transport::Share {
  CURLSH* sh = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;

  Share() {
    sh = curl_share_init();
    curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, &Share::lock);
    curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, &Share::unlock);
    curl_share_setopt(sh, CURLSHOPT_USERDATA, this);
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~Share() { curl_share_cleanup(sh); }
  static void lock(CURL*, curl_lock_data d, curl_lock_access, void* user) {
    static_cast<Share*>(user)->locks[static_cast<size_t>(d)].lock();
  }
  static void unlock(CURL*, curl_lock_data d, void* user) {
    static_cast<Share*>(user)->locks[static_cast<size_t>(d)].unlock();
  }
};

Transport::Transport(RestConfig config, TransportOptions options)
    : config_(std::move(config)), options_(std::move(options)), credentials_(config_),
      share_(std::make_unique<Share>()) {}

Transport::~Transport() {
  for (void* h : pool_) curl_easy_cleanup(static_cast<CURL*>(h));
  pool_.clear();
}

base::Result<std::shared_ptr<Transport>> Transport::create(const RestConfig& config, TransportOptions options) {
  if (auto loaded = http::load_libcurl(); !loaded) return std::move(loaded).error();
  CURLU* u = curl_url();
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> guard(u, &curl_url_cleanup);
  if (curl_url_set(u, CURLUPART_URL, config.server.c_str(), 0) != CURLUE_OK) {
    return base::make_error(ErrorKind::Failed, "is not a URL", "server \"" + config.server + "\"");
  }
  auto part = [&](CURLUPart p, unsigned flags = 0) {
    char* s = nullptr;
    std::string out;
    if (curl_url_get(u, p, &s, flags) == CURLUE_OK && s != nullptr) out = s;
    curl_free(s);
    return out;
  };
  std::string scheme = part(CURLUPART_SCHEME);
  if (scheme != "https" && scheme != "http") {
    return base::make_error(ErrorKind::Failed, "has scheme \"" + scheme + "\"; only https and http are supported",
                           "server \"" + config.server + "\"");
  }
  std::string host = part(CURLUPART_HOST);
  std::string port = part(CURLUPART_PORT, CURLU_DEFAULT_PORT);
  std::string path = part(CURLUPART_PATH);
  while (!path.empty() && path.back() == '/') path.pop_back();

  std::shared_ptr<Transport> t(new Transport(config, std::move(options)));
  // libcurl 7.88 has no option for "verify against this name": the URL's
  // host is what it sends as SNI and checks the certificate against. So the
  // URL names tls-server-name and CONNECT_TO sends the connection to the
  // real host. (The Host header then carries that name too; the apiserver
  // does not care.)
  if (!config.tls_server_name.empty() && config.tls_server_name != host) {
    t->connect_to_ = config.tls_server_name + ":" + port + ":" + host + ":" + port;
    host = config.tls_server_name;
  }
  t->url_base_ = scheme + "://" + host + ":" + port + path;
  return t;
}

void Transport::set_log(RequestLogSink log) {
  std::lock_guard lock(log_mu_);
  options_.log = std::move(log);
}

void* Transport::take_handle() {
  std::lock_guard lock(pool_mu_);
  if (!pool_.empty()) {
    void* h = pool_.back();
    pool_.pop_back();
    curl_easy_reset(static_cast<CURL*>(h));
    return h;
  }
  return curl_easy_init();
}

void Transport::give_back(void* handle) {
  std::lock_guard lock(pool_mu_);
  pool_.push_back(handle);
}

// What every connection to the apiserver shares: TLS verified unless the
// kubeconfig explicitly says otherwise, the client certificate, the
// tls-server-name redirection, the proxy, timeouts. The blobs are copied by
// curl. Returns the CONNECT_TO list the caller frees after the transfer.
curl_slist* Transport::connection_options(void* handle, const AuthMaterial& auth) const {
  CURL* c = static_cast<CURL*>(handle);
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, config_.insecure_skip_tls_verify ? 0L : 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, config_.insecure_skip_tls_verify ? 0L : 2L);
  curl_blob ca{}, cert{}, key{};
  if (!config_.ca_pem.empty()) {
    ca = blob_of(config_.ca_pem);
    curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &ca);
  } else if (!config_.ca_file.empty()) {
    curl_easy_setopt(c, CURLOPT_CAINFO, config_.ca_file.c_str());
  }
  const std::string& cert_pem = !auth.cert_pem.empty() ? auth.cert_pem : config_.cert_pem;
  const std::string& key_pem = !auth.key_pem.empty() ? auth.key_pem : config_.key_pem;
  curl_easy_setopt(c, CURLOPT_SSLCERTTYPE, "PEM");
  curl_easy_setopt(c, CURLOPT_SSLKEYTYPE, "PEM");
  if (!cert_pem.empty()) {
    cert = blob_of(cert_pem);
    curl_easy_setopt(c, CURLOPT_SSLCERT_BLOB, &cert);
  } else if (!config_.cert_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLCERT, config_.cert_file.c_str());
  }
  if (!key_pem.empty()) {
    key = blob_of(key_pem);
    curl_easy_setopt(c, CURLOPT_SSLKEY_BLOB, &key);
  } else if (!config_.key_file.empty()) {
    curl_easy_setopt(c, CURLOPT_SSLKEY, config_.key_file.c_str());
  }
  curl_slist* connect_to = nullptr;
  if (!connect_to_.empty()) {
    connect_to = curl_slist_append(nullptr, connect_to_.c_str());
    curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to);
  }
  if (!config_.proxy_url.empty()) curl_easy_setopt(c, CURLOPT_PROXY, config_.proxy_url.c_str());
  return connect_to;
}

base::Result<HttpResponse> Transport::perform(const HttpRequest& req) {
  auto auth = credentials_.current();
  if (!auth) return std::move(auth).error();

  CURL* c = static_cast<CURL*>(take_handle());
  if (c == nullptr) return base::make_error(ErrorKind::Failed, "cannot create a curl handle");
  std::string url = url_base_ + req.path;
  HttpResponse resp;
  http::Receiver rx(&req.on_data);

  curl_easy_setopt(c, CURLOPT_SHARE, share_->sh);
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  // curl_easy_perform copies this into its private multi handle, whose limit
  // bounds the shared cache: at the default (5) concurrent threads would
  // close each other's idle connections and handshake again and again.
  curl_easy_setopt(c, CURLOPT_MAXCONNECTS, 64L);
  // A create goes on a new connection only: on a reused connection that
  // dies before the answer, libcurl sends the request again by itself,
  // unseen by the client's retry rules (a POST is never resent, retry.h),
  // and a create with generateName made a second object
  // (docs/server-faults.md#lost-answers).
  curl_easy_setopt(c, CURLOPT_FRESH_CONNECT, req.method == "POST" ? 1L : 0L);
  auto timeout = req.timeout.count() > 0 ? req.timeout : options_.request_timeout;
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  rx.attach(c);
  curl_easy_setopt(c, CURLOPT_ACCEPT_ENCODING, "");  // gzip for large lists
  curl_slist* connect_to = connection_options(c, *auth);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  if (!req.body.empty() || req.method == "POST" || req.method == "PUT" || req.method == "PATCH") {
    std::string ct = "Content-Type: " + (req.content_type.empty() ? std::string("application/json") : req.content_type);
    headers = curl_slist_append(headers, ct.c_str());
  }
  std::string authz;
  if (!auth->bearer.empty()) {
    authz = "Authorization: Bearer " + auth->bearer;
    headers = curl_slist_append(headers, authz.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

  http::set_method(c, req.method, req.body, true);

  auto start = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(c);
  auto duration = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  long new_conns = 0;
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &new_conns);
  requests_.fetch_add(1);
  connections_.fetch_add(static_cast<uint64_t>(new_conns));
  resp.status = static_cast<int>(code);
  long version = 0;
  curl_easy_getinfo(c, CURLINFO_HTTP_VERSION, &version);
  resp.http_version = version == CURL_HTTP_VERSION_2_0 ? 2 : (version == 0 ? 0 : 1);
  if (resp.http_version == 2) http2_.fetch_add(1);
  // Whether the request could have reached the server: 0 means the transfer
  // never started (connect, TLS), so even a create may be sent again.
  curl_off_t pretransfer = 0;
  curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME_T, &pretransfer);

  // Secrets must not outlive the request in the handle's copies.
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(c, CURLOPT_CONNECT_TO, nullptr);
  curl_slist_free_all(headers);
  curl_slist_free_all(connect_to);
  if (!authz.empty()) {
    volatile char* p = authz.data();
    for (size_t i = 0; i < authz.size(); ++i) p[i] = 0;
  }
  give_back(c);

  resp.body = std::move(rx.body());
  resp.stopped_by_reader = rx.stopped();
  if (const std::string& after = rx.header("retry-after"); !after.empty()) {
    char* end = nullptr;
    const long seconds = std::strtol(after.c_str(), &end, 10);
    if (end != after.c_str() && seconds >= 0) resp.retry_after = std::chrono::seconds(seconds);
  }

  std::string error;
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && resp.stopped_by_reader)) {
    error = curl_easy_strerror(rc);
  }
  {
    std::lock_guard lock(log_mu_);
    if (options_.log) options_.log({req.method, redact_query(req.path), resp.status, duration, error});
  }
  if (error.empty()) return resp;

  // A streaming transfer that timed out after a 2xx is a normal end of a watch.
  if (rc == CURLE_OPERATION_TIMEDOUT && req.on_data && rx.streaming()) return resp;

  return curl_failure(rc, pretransfer != 0, req.method + " failed: " + error, "server \"" + config_.server + "\"");
}

base::Result<std::unique_ptr<RawConnection>> Transport::connect_raw(std::chrono::milliseconds timeout) {
  auto auth = credentials_.current();
  if (!auth) return std::move(auth).error();
  CURL* c = curl_easy_init();
  if (c == nullptr) return base::make_error(ErrorKind::Failed, "cannot create a curl handle");
  std::unique_ptr<RawConnection> raw(new RawConnection());
  raw->handle_ = c;
  raw->object_ = "server \"" + config_.server + "\"";
  std::string rest = url_base_.substr(url_base_.find("://") + 3);
  std::size_t slash = rest.find('/');
  raw->host_ = rest.substr(0, slash);
  raw->prefix_ = slash == std::string::npos ? std::string() : rest.substr(slash);
  raw->user_agent_ = options_.user_agent;
  if (!auth->bearer.empty()) raw->authorization_ = "Authorization: Bearer " + auth->bearer;

  std::string url = url_base_ + "/";
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_slist* connect_to = connection_options(c, *auth);
  // HTTP/1.1 only: an upgrade is an HTTP/1.1 exchange, so ALPN must not
  // pick h2.
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(c, CURLOPT_CONNECT_ONLY, 1L);
  auto limit = std::min(timeout, options_.connect_timeout);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(limit.count()));
  CURLcode rc = curl_easy_perform(c);
  curl_easy_setopt(c, CURLOPT_CONNECT_TO, nullptr);
  curl_slist_free_all(connect_to);
  long new_conns = 0;
  curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &new_conns);
  connections_.fetch_add(static_cast<uint64_t>(new_conns));
  if (rc != CURLE_OK) {
    return curl_failure(rc, false, "cannot connect: " + std::string(curl_easy_strerror(rc)), raw->object_);
  }
  curl_socket_t fd = CURL_SOCKET_BAD;
  curl_easy_getinfo(c, CURLINFO_ACTIVESOCKET, &fd);
  if (fd == CURL_SOCKET_BAD) return base::make_error(ErrorKind::CannotConnect, "no connection", raw->object_);
  raw->fd_ = static_cast<int>(fd);
  return raw;
}

void Transport::log_request(const RequestLogEntry& entry) {
  std::lock_guard lock(log_mu_);
  if (options_.log) options_.log(entry);
}

RawConnection::~RawConnection() {
  volatile char* p = authorization_.data();
  for (size_t i = 0; i < authorization_.size(); ++i) p[i] = 0;
  if (handle_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(handle_));
}

std::vector<std::string> RawConnection::headers() const {
  std::vector<std::string> h;
  if (!authorization_.empty()) h.push_back(authorization_);
  h.push_back("User-Agent: " + user_agent_);
  return h;
}

base::Result<std::size_t> RawConnection::send(std::string_view data) {
  size_t n = 0;
  CURLcode rc = curl_easy_send(static_cast<CURL*>(handle_), data.data(), data.size(), &n);
  if (rc == CURLE_AGAIN) return std::size_t{0};
  if (rc != CURLE_OK) {
    return curl_failure(rc, true, "connection lost: " + std::string(curl_easy_strerror(rc)), object_);
  }
  return n;
}

base::Result<std::size_t> RawConnection::recv(char* buf, std::size_t size, bool* closed) {
  size_t n = 0;
  *closed = false;
  CURLcode rc = curl_easy_recv(static_cast<CURL*>(handle_), buf, size, &n);
  if (rc == CURLE_AGAIN) return std::size_t{0};
  if (rc != CURLE_OK) {
    return curl_failure(rc, true, "connection lost: " + std::string(curl_easy_strerror(rc)), object_);
  }
  if (n == 0) *closed = true;
  return n;
}

}  // namespace kube
