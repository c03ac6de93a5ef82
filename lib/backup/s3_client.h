// A small S3 client over libcurl: the object calls a snapshot upload needs,
// signed with libcurl's SigV4 (CURLOPT_AWS_SIGV4) plus the headers libcurl
// 7.88 leaves to its caller (s3_request.h). One curl handle, reused so that
// the calls of one upload share a connection; not for use from two threads.
// TLS is verified (system CAs or S3Location::ca_file); plain http is allowed
// for test servers. The secret key only ever goes to libcurl's signer.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backup/s3_config.h"
#include "backup/s3_request.h"
#include "base/result.h"

namespace backup {

struct S3Response {
  int status = 0;
  std::string body;  // an XML answer or error; streamed GETs leave it empty on success
  std::map<std::string, std::string> headers;  // lower-case names
};

struct S3ObjectInfo {
  std::uint64_t size = 0;
  std::string etag;  // unquoted, lower case
  S3Metadata metadata;
  std::string crc32c;  // x-amz-checksum-crc32c, when head() asked for checksums and the server keeps one
};

// What a body sent (a single PUT or a part) carries for the server to check
// as it arrives (docs/rules.md#s3-part-checksums): Content-MD5, or
// x-amz-checksum-crc32c, or both.
struct S3BodyCheck {
  std::optional<base::Md5Digest> md5;
  std::optional<std::uint32_t> crc32c;
  // The body's SHA-256 (hex) when the caller has it; else computed here when
  // signs_payload().
  std::string sha256_hex;
};

// What the server answered for a stored body.
struct S3Stored {
  std::string etag;    // unquoted, lower case
  std::string crc32c;  // x-amz-checksum-crc32c as answered; empty: none
};

struct S3Upload {
  std::string id;
  // The server echoed the CRC32C algorithm asked for: it checks each part's
  // CRC and keeps the composite checksum.
  bool crc32c = false;
};

struct S3ClientOptions {
  std::chrono::milliseconds connect_timeout{10000};
  // A transfer slower than 1 KiB/s for this long is abandoned.
  std::chrono::seconds stall_timeout{60};
  // Attempts of a call that can safely be repeated (5xx answers, connections
  // that broke after they were made). Refused connections never retry.
  int attempts = 3;
  std::chrono::milliseconds retry_delay{1000};
};

class S3Client {
 public:
  static base::Result<std::unique_ptr<S3Client>> create(S3Location location, S3Credentials credentials,
                                                       S3ClientOptions options = {});
  ~S3Client();
  S3Client(const S3Client&) = delete;
  S3Client& operator=(const S3Client&) = delete;

  const S3Location& location() const { return location_; }
  // A client of its own (its own connection) to the same endpoint, bucket and
  // credentials: one per part uploading at the same time.
  base::Result<std::unique_ptr<S3Client>> another() const;
  std::string uri(std::string_view key) const { return s3_uri(location_.bucket, key); }

  // nullopt when the object does not exist. Note that S3 answers a HEAD
  // without a body, so a missing bucket or a bad credential is only told
  // apart by check_access(). checksums: ask for the stored checksum too
  // (x-amz-checksum-mode).
  base::Result<std::optional<S3ObjectInfo>> head(std::string_view key, bool checksums = false);
  // Fails fast, naming the cause, when the bucket is missing, the credentials
  // are wrong or the endpoint cannot be reached; fine when only the key is absent.
  base::Status check_access(std::string_view key);
  // Single PUT. The checks (the caller has them already) go as headers,
  // which S3 checks.
  base::Result<S3Stored> put(std::string_view key, std::string_view body, const S3Metadata& metadata,
                            const S3BodyCheck& check);
  // crc32c: ask for parts checked by CRC32C (x-amz-checksum-algorithm);
  // the answer says whether the server agreed.
  base::Result<S3Upload> create_multipart(std::string_view key, const S3Metadata& metadata, bool crc32c = false);
  base::Result<S3Stored> upload_part(std::string_view key, std::string_view upload_id, int part_number,
                                    std::string_view body, const S3BodyCheck& check);
  // Whether request signatures cover the body's SHA-256 (plain http; over
  // https the body goes unsigned, protected by TLS and a checksum the server
  // checks: docs/rules.md#s3-part-checksums).
  bool signs_payload() const;
  // Answers the completed object's ETag and, for a CRC32C upload (its
  // parts' checksums in part_crc32c, as crc32c_base64 gives them), the
  // composite checksum the server computed.
  base::Result<S3Stored> complete_multipart(std::string_view key, std::string_view upload_id,
                                           const std::vector<std::string>& part_etags,
                                           const std::vector<std::string>& part_crc32c = {});
  base::Status abort_multipart(std::string_view key, std::string_view upload_id);
  // The multipart uploads pending under exactly this key (ListMultipartUploads).
  base::Result<std::vector<std::string>> pending_uploads(std::string_view key);
  // Replaces the object's user metadata (a copy onto itself; up to 5 GiB).
  base::Status replace_metadata(std::string_view key, const S3Metadata& metadata);
  base::Status remove(std::string_view key);
  // Streams the object's bytes to on_data (false stops).
  base::Status get(std::string_view key, const std::function<bool(std::string_view)>& on_data);

 private:
  struct Call {
    std::string method = "GET";
    std::string key;
    QueryParams query;
    std::string_view body;
    std::string payload_sha256;  // hex; empty: hash of the body
    S3Metadata metadata;
    std::vector<std::string> headers;
    const std::function<bool(std::string_view)>* on_data = nullptr;
    bool retry = true;
  };
  S3Client(S3Location location, S3Credentials credentials, S3ClientOptions options, S3Endpoint endpoint);
  base::Result<S3Response> perform(const Call& call);
  base::Result<S3Response> perform_once(const Call& call);
  // A non-2xx answer as an error naming `what` and the object.
  base::Error answer_error(std::string_view what, std::string_view key, const S3Response& r) const;

  S3Location location_;
  S3Credentials credentials_;
  S3ClientOptions options_;
  S3Endpoint endpoint_;
  void* curl_ = nullptr;
};

}  // namespace backup
