// A snapshot streamed into one S3 object with bounded memory: bytes gather
// in one part buffer (8 MiB by default); a stream that fits is sent with a
// single PUT at commit(), a longer one as a multipart upload, one part each
// time the buffer fills. That part uploads on a thread of its own, over a
// connection of its own, while the next one fills; up to kS3PartsInFlight
// parts upload at once (memory: those and the one filling), so receiving and
// sending overlap instead of taking turns and one slow PUT does not hold the
// stream up. Each part carries a checksum the server checks as it arrives:
// over https its CRC32C where the server takes CRCs, else (and over http)
// its Content-MD5 (docs/rules.md#s3-part-checksums). commit() then reads the
// object back (HEAD: size, user metadata, and the checksum S3 computed from
// the parts' CRCs, or the ETag it computed from their MD5s; the bytes
// themselves, their SHA-256 against the stream's, when a copy for the
// metadata changed that checksum or ETag) before it answers success. abort() (and a failure anywhere) aborts the multipart
// upload, or deletes an object that failed its read-back, so no partial
// artefact stays behind under the key; when the server is gone and the
// abort cannot reach it, the error names the upload left pending, and the
// next create() for the key aborts it. The SHA-256 of the stream (result
// and sha256 metadata) is the writer's to tell (Sink::written_sha256) before
// commit(), which fails without it: a snapshot stream hashes every byte
// anyway, so the sink does not hash them a second time.
//
// create() checks before any byte streams: the bucket exists, the
// credentials work, the endpoint answers; and an object already under the
// key is only replaced when it carries the same owner metadata
// (docs/rules.md#safety-backup: the tool overwrites its own earlier artefact and
// nothing else).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backup/s3_client.h"
#include "base/crc32c.h"
#include "base/md5.h"
#include "base/sha256.h"
#include "base/sink.h"

namespace backup {

// Parts uploading at the same time, each over a connection of its own:
// with the default 8 MiB parts the sink holds 24 MiB of data at most.
inline constexpr std::size_t kS3PartsInFlight = 2;

struct S3SinkOptions {
  S3Metadata metadata;  // x-amz-meta-* of the object
  // The name under which commit() adds the hex SHA-256 of all bytes written
  // to the metadata (empty: not added). Multipart objects get it by a copy
  // onto themselves after the upload, since it is only known at the end.
  std::string sha256_metadata_key;
  // The metadata name whose value marks the object's owner: an existing
  // object is replaced only if its value equals metadata[owner_key]. Empty:
  // replace anything.
  std::string owner_key;
  std::size_t part_size = kS3DefaultPartSize;
  std::size_t parts_in_flight = kS3PartsInFlight;  // at least 1
  std::uint64_t expected_size = 0;  // grows the part size for huge objects (s3_part_size)
  // Over https, parts checked by CRC32C where the server supports it; off:
  // Content-MD5 and the ETag checks, as over http (docs/rules.md#s3-part-checksums).
  bool checksum_crc32c = true;
  S3ClientOptions client;
};

struct S3UploadResult {
  std::string uri;     // s3://bucket/key
  std::uint64_t bytes = 0;
  std::string etag;    // as read back (verified against the MD5s sent, on the Content-MD5 path)
  std::string crc32c;  // the checksum read back and verified, on the CRC32C path; else empty
  int parts = 0;       // 0: single PUT
  std::string sha256;  // hex, of the bytes written
};

class S3Sink final : public base::Sink {
 public:
  static base::Result<std::unique_ptr<S3Sink>> create(const S3Location& location, const S3Credentials& credentials,
                                                     std::string key, S3SinkOptions options = {});
  ~S3Sink() override;
  S3Sink(const S3Sink&) = delete;
  S3Sink& operator=(const S3Sink&) = delete;

  base::Status write(std::string_view data) override;
  base::Status commit() override;
  void abort() noexcept override;
  void written_sha256(const base::Digest& d) override { told_sha256_ = d; }

  const std::string& key() const { return key_; }
  std::string uri() const { return client_->uri(key_); }
  std::size_t part_size() const { return part_size_; }
  // Valid after a successful commit().
  const S3UploadResult& result() const { return result_; }

 private:
  S3Sink(std::unique_ptr<S3Client> client, std::string key, S3SinkOptions options);
  base::Status flush_part();
  base::Status settle_oldest();  // waits for the oldest part in flight and records its ETag
  base::Status settle();         // the same for every part in flight
  // expected: the ETag (Content-MD5 path) or the CRC32C checksum; what
  // the read-back found, on success.
  base::Result<S3ObjectInfo> verify(const std::string& expected, const S3Metadata& expected_metadata);
  // Reads the object's bytes back: their SHA-256 must be the stream's; the
  // MD5 and CRC32C of all of them go to the caller.
  base::Status read_back(base::Md5Digest& md5, std::uint32_t& crc);
  // Aborts the upload (or removes a written object); the abort's error.
  base::Status discard() noexcept;
  // discard(), then `e`, naming an upload the abort could not end.
  base::Status fail(base::Error e);

  std::unique_ptr<S3Client> client_;
  std::string key_;
  S3SinkOptions options_;
  std::size_t part_size_;
  std::string buffer_;
  std::string upload_id_;
  std::vector<std::string> part_etags_;
  // A part in flight: its thread alone touches it (and its client) until
  // settle_oldest() joins it. Parts settle in the order they were cut, so
  // the ETags stay in part order.
  struct Flight {
    std::unique_ptr<S3Client> client;
    std::thread uploader;
    std::string data;
    int number = 0;
    S3BodyCheck check;
    std::optional<base::Result<S3Stored>> stored;
  };
  std::deque<Flight> flights_;  // a deque: a running thread's Flight never moves
  std::vector<std::unique_ptr<S3Client>> spare_clients_;
  // Parts checked by CRC32C instead of Content-MD5: https, asked for, and
  // (once the upload started) the server agreed.
  bool crc_ = false;
  // The filling part's CRC32C or MD5, and (when signed) SHA-256, hashed as
  // bytes arrive: the receiving thread does it, not the uploading one, which
  // is the longer of the two.
  base::Crc32c part_crc_;
  base::Md5 part_md5_;
  base::Sha256 part_sha_;
  std::vector<base::Md5Digest> part_md5s_;
  std::vector<std::uint32_t> part_crcs_;
  std::optional<base::Digest> told_sha256_;
  std::uint64_t bytes_ = 0;
  bool object_written_ = false;  // something is stored under the key by us
  bool done_ = false;
  S3UploadResult result_;
};

}  // namespace backup
