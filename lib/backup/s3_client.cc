#include "backup/s3_client.h"

#include <curl/curl.h>
#include <openssl/evp.h>
#include <strings.h>

#include <algorithm>
#include <thread>

#include "base/sha256.h"
#include "http/curl_error.h"
#include "http/libcurl.h"
#include "http/receiver.h"

namespace backup {

namespace {

using base::ErrorKind;

std::string base64(const std::uint8_t* data, std::size_t n) {
  std::string out(4 * ((n + 2) / 3) + 1, '\0');
  int len = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(n));
  out.resize(static_cast<std::size_t>(len));
  return out;
}

bool retryable(int status) { return status == 500 || status == 502 || status == 503 || status == 504; }

std::vector<std::string> check_headers(const S3BodyCheck& check) {
  std::vector<std::string> h;
  if (check.md5) h.push_back("Content-MD5: " + base64(check.md5->data(), check.md5->size()));
  if (check.crc32c) h.push_back("x-amz-checksum-crc32c: " + crc32c_base64(*check.crc32c));
  return h;
}

S3Stored stored(S3Response& r) {
  S3Stored s;
  s.etag = unquote_etag(r.headers["etag"]);
  s.crc32c = r.headers["x-amz-checksum-crc32c"];
  return s;
}

}  // namespace

S3Client::S3Client(S3Location location, S3Credentials credentials, S3ClientOptions options, S3Endpoint endpoint)
    : location_(std::move(location)), credentials_(std::move(credentials)), options_(options),
      endpoint_(std::move(endpoint)) {}

S3Client::~S3Client() {
  if (curl_ != nullptr) curl_easy_cleanup(static_cast<CURL*>(curl_));
  volatile char* p = credentials_.secret_access_key.data();
  for (std::size_t i = 0; i < credentials_.secret_access_key.size(); ++i) p[i] = 0;
}

base::Result<std::unique_ptr<S3Client>> S3Client::create(S3Location location, S3Credentials credentials,
                                                        S3ClientOptions options) {
  auto ep = parse_s3_endpoint(location.endpoint);
  if (!ep) return std::move(ep).error();
  if (location.bucket.empty()) {
    return base::make_error(ErrorKind::Usage, "no bucket given", "S3 endpoint \"" + location.endpoint + "\"");
  }
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty()) {
    return base::make_error(ErrorKind::Usage, "the access key ID or the secret access key is empty",
                           "S3 credentials", "give both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  }
  std::unique_ptr<S3Client> c(new S3Client(std::move(location), std::move(credentials), options, std::move(*ep)));
  if (auto loaded = http::load_libcurl(); !loaded) return std::move(loaded).error();
  c->curl_ = curl_easy_init();
  if (c->curl_ == nullptr) return base::make_error(ErrorKind::Failed, "cannot create a curl handle");
  return c;
}

base::Result<S3Response> S3Client::perform(const Call& call) {
  int attempts = call.retry ? std::max(1, options_.attempts) : 1;
  for (int i = 1;; ++i) {
    auto r = perform_once(call);
    bool again = false;
    if (!r.ok()) {
      // Refused or unresolvable: the endpoint is wrong, waiting will not help.
      // Broken or stalled on the way: S3 requests are whole-object or
      // whole-part writes, safe to send again.
      const auto& reason = r.error().reason;
      again = reason == http::kReasonTransportFailed || reason == http::kReasonTimeout;
    } else {
      again = retryable(r->status);
    }
    if (!again || i >= attempts) return r;
    std::this_thread::sleep_for(options_.retry_delay * i);
  }
}

base::Result<S3Response> S3Client::perform_once(const Call& call) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);
  S3Response resp;
  // Answers that are not streamed are XML documents or errors; a server
  // sending megabytes there is broken, so no more than 1 MiB is kept.
  http::Receiver rx(call.on_data, std::size_t{1} << 20);
  std::string url = s3_object_url(endpoint_, location_, call.key, call.query);
  std::string sigv4 = sigv4_param(location_.region);

  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "https,http");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options_.stall_timeout.count()));
  curl_easy_setopt(c, CURLOPT_USERAGENT, "etcd-operator-cli");
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!location_.ca_file.empty()) curl_easy_setopt(c, CURLOPT_CAINFO, location_.ca_file.c_str());
  curl_easy_setopt(c, CURLOPT_AWS_SIGV4, sigv4.c_str());
  curl_easy_setopt(c, CURLOPT_USERNAME, credentials_.access_key_id.c_str());
  curl_easy_setopt(c, CURLOPT_PASSWORD, credentials_.secret_access_key.c_str());
  rx.attach(c);

  // Over https the body needs no hash of its own (TLS protects it and S3
  // checks Content-MD5 or its CRC32C), which saves a SHA-256 pass over every
  // part; over plain http the signature covers the body.
  std::string payload = signs_payload() ? call.payload_sha256 : std::string();
  if (payload.empty()) {
    if (call.body.empty()) {
      payload = empty_payload_sha256();
    } else if (!signs_payload()) {
      payload = kUnsignedPayload;
    } else {
      payload = base::to_hex(base::sha256(call.body));
    }
  }
  std::vector<std::string> extra = call.headers;
  // No "Expect: 100-continue" round trip per part: check_access() has
  // already found out whether the server takes our requests.
  extra.push_back("Expect:");
  bool has_body = call.method == "PUT" || call.method == "POST";
  if (has_body && std::none_of(extra.begin(), extra.end(), [](const std::string& h) {
        return strncasecmp(h.c_str(), "content-type:", 13) == 0;
      })) {
    extra.push_back(call.body.empty() ? "Content-Type:" : "Content-Type: application/octet-stream");
  }
  curl_slist* headers = nullptr;
  for (const auto& h : s3_headers(payload, credentials_, call.metadata, extra)) {
    headers = curl_slist_append(headers, h.c_str());
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);

  http::set_method(c, call.method, call.body, has_body);

  CURLcode rc = curl_easy_perform(c);
  long code = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  resp.status = static_cast<int>(code);
  curl_off_t pretransfer = 0;
  curl_easy_getinfo(c, CURLINFO_PRETRANSFER_TIME_T, &pretransfer);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(c, CURLOPT_PASSWORD, "");
  curl_slist_free_all(headers);
  resp.body = std::move(rx.body());
  resp.headers = std::move(rx.headers());

  if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && rx.stopped())) return resp;
  // Named as the object it was for and where it was sent: either can be the mistake.
  base::Error e = http::curl_error(rc, pretransfer != 0, call.method + " failed: " + curl_easy_strerror(rc),
                                  uri(call.key) + " at \"" + location_.endpoint + "\"");
  if (e.reason == http::kReasonTLS) {
    e.hint = "check the endpoint's certificate and the CA bundle";
  } else if (e.reason == http::kReasonConnectFailed) {
    e.hint = "check the S3 endpoint URL";
  }
  return e;
}

base::Error S3Client::answer_error(std::string_view what, std::string_view key, const S3Response& r) const {
  return s3_answer_error(what, uri(key), r.status, r.body);
}

base::Result<std::optional<S3ObjectInfo>> S3Client::head(std::string_view key, bool checksums) {
  Call call;
  call.method = "HEAD";
  call.key = std::string(key);
  if (checksums) call.headers = {"x-amz-checksum-mode: ENABLED"};
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status == 404) return std::optional<S3ObjectInfo>();
  if (r->status / 100 != 2) return answer_error("cannot read the object's attributes", key, *r);
  S3ObjectInfo info;
  info.size = std::strtoull(r->headers["content-length"].c_str(), nullptr, 10);
  info.etag = unquote_etag(r->headers["etag"]);
  info.crc32c = r->headers["x-amz-checksum-crc32c"];
  for (const auto& [name, value] : r->headers) {
    if (name.rfind("x-amz-meta-", 0) == 0) info.metadata[name.substr(11)] = value;
  }
  return std::optional<S3ObjectInfo>(std::move(info));
}

base::Status S3Client::check_access(std::string_view key) {
  // A GET of the first byte: unlike a HEAD, its error answer names the cause.
  Call call;
  call.key = std::string(key);
  call.headers = {"Range: bytes=0-0"};
  std::function<bool(std::string_view)> discard = [](std::string_view) { return true; };
  call.on_data = &discard;
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 == 2 || r->status == 416) return {};  // exists (416: exists and is empty)
  if (r->status == 404 && xml_value(r->body, "Code") == "NoSuchKey") return {};
  return answer_error("cannot use the bucket", key, *r);
}

base::Result<S3Stored> S3Client::put(std::string_view key, std::string_view body, const S3Metadata& metadata,
                                    const S3BodyCheck& check) {
  Call call;
  call.method = "PUT";
  call.key = std::string(key);
  call.body = body;
  call.metadata = metadata;
  call.payload_sha256 = check.sha256_hex;
  call.headers = check_headers(check);
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2) return answer_error("cannot upload", key, *r);
  return stored(*r);
}

base::Result<std::unique_ptr<S3Client>> S3Client::another() const {
  return create(location_, credentials_, options_);
}

base::Result<S3Upload> S3Client::create_multipart(std::string_view key, const S3Metadata& metadata, bool crc32c) {
  Call call;
  call.method = "POST";
  call.key = std::string(key);
  call.query = {{"uploads", ""}};
  call.metadata = metadata;
  if (crc32c) call.headers = {"x-amz-checksum-algorithm: CRC32C"};
  call.retry = false;  // a repeat would start a second upload
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2) return answer_error("cannot start a multipart upload", key, *r);
  std::string id = xml_value(r->body, "UploadId");
  if (id.empty()) {
    return base::make_error(ErrorKind::Failed, "the server started a multipart upload without an UploadId", uri(key));
  }
  S3Upload upload;
  upload.id = std::move(id);
  // A server that does not know the header ignores it and answers without it.
  upload.crc32c = crc32c && strcasecmp(r->headers["x-amz-checksum-algorithm"].c_str(), "CRC32C") == 0;
  return upload;
}

bool S3Client::signs_payload() const { return endpoint_.scheme != "https"; }

base::Result<S3Stored> S3Client::upload_part(std::string_view key, std::string_view upload_id, int part_number,
                                             std::string_view body, const S3BodyCheck& check) {
  Call call;
  call.payload_sha256 = check.sha256_hex;
  call.method = "PUT";
  call.key = std::string(key);
  call.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", std::string(upload_id)}};
  call.body = body;
  call.headers = check_headers(check);
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2) return answer_error("cannot upload part " + std::to_string(part_number), key, *r);
  return stored(*r);
}

base::Result<S3Stored> S3Client::complete_multipart(std::string_view key, std::string_view upload_id,
                                                   const std::vector<std::string>& part_etags,
                                                   const std::vector<std::string>& part_crc32c) {
  std::string body = complete_multipart_xml(part_etags, part_crc32c);
  Call call;
  call.method = "POST";
  call.key = std::string(key);
  call.query = {{"uploadId", std::string(upload_id)}};
  call.body = body;
  call.headers = {"Content-Type: application/xml"};
  auto r = perform(call);
  if (!r) return std::move(r).error();
  // S3 can answer 200 and put the error in the body (it fails after it began answering).
  std::string code = xml_value(r->body, "Code");
  if (r->status / 100 != 2 || !code.empty()) {
    return answer_error("cannot complete the multipart upload", key, *r);
  }
  S3Stored done;
  done.etag = unquote_etag(xml_value(r->body, "ETag"));
  done.crc32c = xml_value(r->body, "ChecksumCRC32C");
  return done;
}

base::Status S3Client::abort_multipart(std::string_view key, std::string_view upload_id) {
  Call call;
  call.method = "DELETE";
  call.key = std::string(key);
  call.query = {{"uploadId", std::string(upload_id)}};
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2 && r->status != 404) return answer_error("cannot abort the multipart upload", key, *r);
  return {};
}

base::Result<std::vector<std::string>> S3Client::pending_uploads(std::string_view key) {
  Call call;
  call.query = {{"prefix", std::string(key)}, {"uploads", ""}};
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2) return answer_error("cannot list the pending multipart uploads", key, *r);
  return pending_upload_ids(r->body, key);
}

base::Status S3Client::replace_metadata(std::string_view key, const S3Metadata& metadata) {
  Call call;
  call.method = "PUT";
  call.key = std::string(key);
  call.metadata = metadata;
  call.headers = {"x-amz-copy-source: /" + uri_encode(location_.bucket, false) + "/" + uri_encode(key, true),
                  "x-amz-metadata-directive: REPLACE"};
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2 || !xml_value(r->body, "Code").empty()) {
    return answer_error("cannot set the object's metadata", key, *r);
  }
  return {};
}

base::Status S3Client::remove(std::string_view key) {
  Call call;
  call.method = "DELETE";
  call.key = std::string(key);
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2 && r->status != 404) return answer_error("cannot delete", key, *r);
  return {};
}

base::Status S3Client::get(std::string_view key, const std::function<bool(std::string_view)>& on_data) {
  Call call;
  call.key = std::string(key);
  call.on_data = &on_data;
  call.retry = false;  // bytes may already have gone to the caller
  auto r = perform(call);
  if (!r) return std::move(r).error();
  if (r->status / 100 != 2) return answer_error("cannot download", key, *r);
  return {};
}

}  // namespace backup
