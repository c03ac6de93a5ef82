// The S3 part checksums (docs/rules.md#s3-part-checksums) against the
// environment's real S3 server (versitygw) over https, TLS verified with the
// environment's CA: parts carry CRC32C, which the server checks (a wrong one
// is refused) and from which it computes the composite checksum the
// read-back compares; over plain http, or with the CRC path off, parts go
// with Content-MD5 and the ETag checks as before, and no CRC is stored.
#include "backup/s3_sink.h"
#include "backup_e2e.h"
#include "base/crc32c.h"
#include "base/md5.h"
#include "base/sha256.h"

using namespace backup_e2e;

namespace {

std::vector<std::string_view> parts_of(const std::string& data, std::size_t part) {
  std::vector<std::string_view> parts;
  for (std::size_t off = 0; off < data.size(); off += part) parts.push_back(std::string_view(data).substr(off, part));
  return parts;
}

backup::S3UploadResult upload(const backup::S3Location& loc, const std::string& key, const std::string& data,
                              bool crc32c = true) {
  backup::S3SinkOptions o;
  o.metadata = {{"etcd-snapshot-uid", "uid-crc"}};
  o.sha256_metadata_key = "etcd-snapshot-sha256";
  o.part_size = backup::kS3MinPartSize;
  o.checksum_crc32c = crc32c;
  auto sink = must(backup::S3Sink::create(loc, s3_credentials(), key, o), "create");
  must(stream(*sink, data), "write");
  must(sink->commit(), "commit");
  return sink->result();
}

}  // namespace

TEST_CASE("over https each part carries its CRC32C; the server's composite checksum is read back") {
  Bucket b("s3-crc");
  auto loc = b.https_location();
  // 7 parts of 5 MiB (the last shorter), more than upload at once.
  std::string data = pattern((30u << 20) + 12345, 21);
  auto r = upload(loc, "crc/multi.db", data);
  CHECK(r.parts == 7);
  std::vector<std::uint32_t> crcs;
  for (auto p : parts_of(data, backup::kS3MinPartSize)) crcs.push_back(base::crc32c(p));
  CHECK(r.crc32c == backup::composite_crc32c(crcs));
  CHECK(r.crc32c.substr(r.crc32c.size() - 2) == "-7");
  CHECK(r.sha256 == base::to_hex(base::sha256(data)));
  CHECK(download(loc, "crc/multi.db") == data);
  // The server keeps it (after the metadata copy too), and has the stream's
  // sha256 as metadata.
  auto client = must(backup::S3Client::create(loc, s3_credentials()), "client");
  auto head = must(client->head("crc/multi.db", true), "head");
  REQUIRE(head.has_value());
  CHECK(head->crc32c == r.crc32c);
  CHECK(head->metadata["etcd-snapshot-sha256"] == r.sha256);

  // A stream shorter than a part: one PUT, checked by the CRC of the whole.
  std::string small = pattern((1u << 20) + 3, 22);
  auto one = upload(loc, "crc/single.db", small);
  CHECK(one.parts == 0);
  CHECK(one.crc32c == backup::crc32c_base64(base::crc32c(small)));
  CHECK(must(client->head("crc/single.db", true), "head")->crc32c == one.crc32c);
  CHECK(download(loc, "crc/single.db") == small);
}

TEST_CASE("the server checks the CRC32C: a part or an object sent with a wrong one is refused, BadDigest") {
  Bucket b("s3-badcrc");
  auto client = must(backup::S3Client::create(b.https_location(), s3_credentials()), "client");
  auto upload = must(client->create_multipart("bad.db", {}, true), "create multipart");
  CHECK(upload.crc32c);  // the server agreed to CRC32C
  std::string part = pattern(backup::kS3MinPartSize, 23);
  backup::S3BodyCheck wrong;
  wrong.crc32c = base::crc32c(part) ^ 1u;
  auto refused = client->upload_part("bad.db", upload.id, 1, part, wrong);
  REQUIRE_FALSE(refused.ok());
  MESSAGE(refused.error().one_line());
  CHECK(refused.error().status == 400);
  CHECK(refused.error().reason == "BadDigest");
  // An upload created for CRC32C takes no part without one.
  auto none = client->upload_part("bad.db", upload.id, 1, part, backup::S3BodyCheck{});
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().status == 400);
  // The right one is taken and echoed.
  backup::S3BodyCheck right;
  right.crc32c = base::crc32c(part);
  auto stored = must(client->upload_part("bad.db", upload.id, 1, part, right), "the part with its CRC");
  CHECK(stored.crc32c == backup::crc32c_base64(*right.crc32c));
  must(client->abort_multipart("bad.db", upload.id), "abort");

  auto put = client->put("bad-single.db", part, {}, wrong);
  REQUIRE_FALSE(put.ok());
  CHECK(put.error().reason == "BadDigest");
  CHECK_FALSE(must(client->head("bad-single.db"), "head").has_value());
}

TEST_CASE("over http, and over https with the CRC path off, parts go with Content-MD5 and the ETags are checked") {
  Bucket b("s3-md5");
  std::string data = pattern((11u << 20) + 5, 24);
  std::vector<base::Md5Digest> md5s;
  for (auto p : parts_of(data, backup::kS3MinPartSize)) md5s.push_back(base::md5(p));
  struct Case {
    const char* name;
    backup::S3Location loc;
    bool crc32c;
  };
  for (const auto& c : {Case{"http", b.location(), true}, Case{"https, CRC off", b.https_location(), false}}) {
    CAPTURE(c.name);
    std::string key = std::string("md5/") + (c.crc32c ? "http" : "https") + ".db";
    auto r = upload(c.loc, key, data, c.crc32c);
    CHECK(r.parts == 3);
    CHECK(r.crc32c.empty());
    CHECK(r.etag == backup::multipart_etag(md5s));
    CHECK(download(c.loc, key) == data);
    // No CRC32C was sent: the server keeps none.
    auto client = must(backup::S3Client::create(c.loc, s3_credentials()), "client");
    auto head = must(client->head(key, true), "head");
    REQUIRE(head.has_value());
    CHECK(head->crc32c.empty());
  }
}
