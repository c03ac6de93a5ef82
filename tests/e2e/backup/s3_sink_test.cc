// The S3 sink against the environment's real S3 server (versitygw, which
// checks SigV4 signatures and Content-MD5): single PUT and multipart uploads
// read back by size, ETag and metadata; both addressing styles; cleanup on
// abort; the owner rule (docs/rules.md#safety-backup); and the failures that must be fast and clear.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "backup/s3_sink.h"
#include "backup_e2e.h"
#include "base/md5.h"
#include "base/sha256.h"

using namespace backup_e2e;
using Clock = std::chrono::steady_clock;

namespace {

std::string download(const Bucket& b, const std::string& key) { return backup_e2e::download(b.location(), key); }

std::string pending_uploads(const Bucket& b) {
  auto r = e2e::run({"curl", "-sS", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u",
                     e2e::var("TESTENV_S3_ACCESS_KEY") + ":" + e2e::var("TESTENV_S3_SECRET_KEY"), "-H",
                     "x-amz-content-sha256: " + base::to_hex(base::sha256("")),
                     e2e::var("TESTENV_S3_ENDPOINT") + "/" + b.name() + "?uploads="});
  REQUIRE(r.rc == 0);
  return r.out;
}

}  // namespace

TEST_CASE("a small stream is one PUT, read back by size, MD5 ETag and metadata") {
  Bucket b("s3-single");
  std::string data = pattern(3u << 20, 1);
  backup::S3SinkOptions o;
  o.metadata = {{"etcd-snapshot-uid", "uid-1"}, {"etcd-snapshot-revision", "42"}};
  o.sha256_metadata_key = "etcd-snapshot-sha256";
  auto sink = must(backup::S3Sink::create(b.location(), s3_credentials(), "etcd/single.db", o), "create");
  must(stream(*sink, data), "write");
  must(sink->commit(), "commit");
  const auto& r = sink->result();
  CHECK(r.parts == 0);
  CHECK(r.bytes == data.size());
  CHECK(r.etag == base::to_hex(base::md5(data)));
  CHECK(r.sha256 == base::to_hex(base::sha256(data)));
  CHECK(r.uri == "s3://" + b.name() + "/etcd/single.db");
  CHECK(download(b, "etcd/single.db") == data);

  auto client = must(backup::S3Client::create(b.location(), s3_credentials()), "client");
  auto head = must(client->head("etcd/single.db"), "head");
  REQUIRE(head.has_value());
  CHECK(head->metadata["etcd-snapshot-uid"] == "uid-1");
  CHECK(head->metadata["etcd-snapshot-revision"] == "42");
  CHECK(head->metadata["etcd-snapshot-sha256"] == r.sha256);
}

TEST_CASE("a long stream is a multipart upload of fixed parts, its ETag the MD5 of part MD5s") {
  // Parts that upload at once: one, the default, and more than the default.
  for (std::size_t in_flight : {std::size_t{1}, backup::kS3PartsInFlight, std::size_t{4}}) {
    CAPTURE(in_flight);
    Bucket b("s3-multi");
    // 5 MiB parts: 7, more than upload at once, so parts cut while others
    // are in flight must still end in order.
    std::string data = pattern((30u << 20) + 12345, 2);
    backup::S3SinkOptions o;
    o.metadata = {{"etcd-snapshot-uid", "uid-2"}};
    o.sha256_metadata_key = "etcd-snapshot-sha256";
    o.part_size = backup::kS3MinPartSize;
    o.parts_in_flight = in_flight;
    auto sink = must(backup::S3Sink::create(b.location(), s3_credentials(), "multi.db", o), "create");
    CHECK(sink->part_size() == backup::kS3MinPartSize);
    must(stream(*sink, data), "write");
    must(sink->commit(), "commit");
    const auto& r = sink->result();
    CHECK(r.parts == 7);
    std::vector<base::Md5Digest> parts;
    for (std::size_t off = 0; off < data.size(); off += backup::kS3MinPartSize) {
      parts.push_back(base::md5(std::string_view(data).substr(off, backup::kS3MinPartSize)));
    }
    CHECK(r.etag == backup::multipart_etag(parts));
    CHECK(r.etag.substr(r.etag.size() - 2) == "-7");
    CHECK(download(b, "multi.db") == data);
    auto client = must(backup::S3Client::create(b.location(), s3_credentials()), "client");
    auto head = must(client->head("multi.db"), "head");
    REQUIRE(head.has_value());
    // The SHA-256 is only known at the end: set by a copy onto itself.
    CHECK(head->metadata["etcd-snapshot-sha256"] == base::to_hex(base::sha256(data)));
    CHECK(head->metadata["etcd-snapshot-uid"] == "uid-2");
    CHECK(pending_uploads(b).find("<Upload>") == std::string::npos);
  }
}

TEST_CASE("the sha256 stored is the one the writer told; a writer that tells none fails the commit") {
  Bucket b("s3-told");
  std::string data = pattern((6u << 20) + 3, 4);  // two parts: the sha256 is set by the copy
  backup::S3SinkOptions o;
  o.metadata = {{"etcd-snapshot-uid", "uid-3"}};
  o.sha256_metadata_key = "etcd-snapshot-sha256";
  o.part_size = backup::kS3MinPartSize;
  // Another digest than the data's: the sink stores what it is told and
  // does not hash the bytes itself.
  const auto told_digest = base::sha256("told");
  auto told = must(backup::S3Sink::create(b.location(), s3_credentials(), "told.db", o), "create");
  must(write_chunks(*told, data), "write");
  told->written_sha256(told_digest);
  must(told->commit(), "commit");
  CHECK(told->result().sha256 == base::to_hex(told_digest));
  auto client = must(backup::S3Client::create(b.location(), s3_credentials()), "client");
  auto head = must(client->head("told.db"), "head");
  REQUIRE(head.has_value());
  CHECK(head->metadata["etcd-snapshot-sha256"] == base::to_hex(told_digest));

  auto untold = must(backup::S3Sink::create(b.location(), s3_credentials(), "untold.db", o), "create");
  must(write_chunks(*untold, data), "write");
  auto st = untold->commit();
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("did not tell the SHA-256") != std::string::npos);
  CHECK_FALSE(must(client->head("untold.db"), "head").has_value());
  CHECK(pending_uploads(b).find("<Upload>") == std::string::npos);
}

TEST_CASE("virtual-host addressing: bucket.localhost") {
  Bucket b("s3-vhost");
  auto loc = b.location(false);
  // curl resolves *.localhost to loopback itself; versitygw runs with --virtual-domain localhost.
  loc.endpoint = "http://localhost:" + e2e::var("TESTENV_S3_ENDPOINT").substr(e2e::var("TESTENV_S3_ENDPOINT").rfind(':') + 1);
  std::string data = pattern(6u << 20, 3);
  backup::S3SinkOptions o;
  o.part_size = backup::kS3MinPartSize;
  auto sink = must(backup::S3Sink::create(loc, s3_credentials(), "v/host.db", o), "create");
  must(stream(*sink, data), "write");
  must(sink->commit(), "commit");
  CHECK(sink->result().parts == 2);
  std::ifstream f(b.dir() + "/v/host.db", std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  CHECK(ss.str() == data);
}

TEST_CASE("abort after parts were sent: no object, no pending multipart upload") {
  Bucket b("s3-abort");
  backup::S3SinkOptions o;
  o.part_size = backup::kS3MinPartSize;
  {
    auto sink = must(backup::S3Sink::create(b.location(), s3_credentials(), "aborted.db", o), "create");
    must(stream(*sink, pattern(11u << 20, 4)), "write");
    CHECK(pending_uploads(b).find("<Upload>") != std::string::npos);
    sink->abort();
  }
  CHECK(pending_uploads(b).find("<Upload>") == std::string::npos);
  struct stat st{};
  CHECK(::stat((b.dir() + "/aborted.db").c_str(), &st) != 0);
  // Destroyed without commit: the same.
  {
    auto sink = must(backup::S3Sink::create(b.location(), s3_credentials(), "dropped.db", o), "create");
    must(stream(*sink, pattern(6u << 20, 5)), "write");
  }
  CHECK(pending_uploads(b).find("<Upload>") == std::string::npos);
  CHECK(::stat((b.dir() + "/dropped.db").c_str(), &st) != 0);
}

TEST_CASE("an existing object is replaced only when it carries the same owner UID") {
  Bucket b("s3-owner");
  backup::S3SinkOptions o;
  o.metadata = {{"etcd-snapshot-uid", "uid-a"}};
  o.owner_key = "etcd-snapshot-uid";
  auto first = must(backup::S3Sink::create(b.location(), s3_credentials(), "x.db", o), "create");
  must(stream(*first, "first"), "write");
  must(first->commit(), "commit");
  // Same owner: replaced.
  auto again = must(backup::S3Sink::create(b.location(), s3_credentials(), "x.db", o), "create again");
  must(stream(*again, "second"), "write");
  must(again->commit(), "commit");
  CHECK(download(b, "x.db") == "second");
  // Another owner: refused before any byte is sent.
  o.metadata["etcd-snapshot-uid"] = "uid-b";
  auto other = backup::S3Sink::create(b.location(), s3_credentials(), "x.db", o);
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().kind == base::ErrorKind::Refused);
  CHECK(other.error().one_line() == "s3://" + b.name() +
                                        "/x.db: exists and was not written for this cluster (its etcd-snapshot-uid "
                                        "is \"uid-a\"); delete it or choose another key prefix");
  CHECK(download(b, "x.db") == "second");
  // An object without the marker is not ours either.
  std::ofstream(b.dir() + "/foreign.db") << "someone else's";
  auto foreign = backup::S3Sink::create(b.location(), s3_credentials(), "foreign.db", o);
  REQUIRE_FALSE(foreign.ok());
  CHECK(foreign.error().one_line().find("it has no etcd-snapshot-uid metadata") != std::string::npos);
}

namespace {

// A failure that must come at create(), fast, on one line, without the secret.
base::Error fails_fast(const backup::S3Location& loc, const backup::S3Credentials& creds) {
  auto t0 = Clock::now();
  auto r = backup::S3Sink::create(loc, creds, "k/x.db");
  double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  REQUIRE_FALSE(r.ok());
  auto e = std::move(r).error();
  MESSAGE(e.one_line());
  CHECK(secs < 3.0);
  CHECK(e.one_line().find('\n') == std::string::npos);
  CHECK(e.one_line().find(creds.secret_access_key) == std::string::npos);
  return e;
}

}  // namespace

TEST_CASE("a wrong secret key fails fast: 403 SignatureDoesNotMatch, with what to check") {
  Bucket b("s3-badsecret");
  auto creds = s3_credentials();
  creds.secret_access_key = "wrong-" + creds.secret_access_key.substr(6);
  auto e = fails_fast(b.location(), creds);
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.one_line() == "s3://" + b.name() + "/k/x.db: cannot use the bucket: S3 answered 403 SignatureDoesNotMatch "
                                             "(the request signature does not match); check AWS_SECRET_ACCESS_KEY of "
                                             "the S3 credentials and the region");
}

TEST_CASE("an unknown access key fails fast naming AWS_ACCESS_KEY_ID") {
  Bucket b("s3-badkey");
  auto creds = s3_credentials();
  creds.access_key_id = "NOSUCHKEY";
  auto e = fails_fast(b.location(), creds);
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.one_line().find("check AWS_ACCESS_KEY_ID") != std::string::npos);
}

TEST_CASE("a missing bucket fails fast: NoSuchBucket") {
  backup::S3Location loc;
  loc.endpoint = e2e::var("TESTENV_S3_ENDPOINT");
  loc.bucket = e2e::unique_name("s3-nobucket");
  loc.force_path_style = true;
  auto e = fails_fast(loc, s3_credentials());
  CHECK(e.kind == base::ErrorKind::NotFound);
  CHECK(e.one_line() == "s3://" + loc.bucket +
                            "/k/x.db: cannot use the bucket: S3 answered 404 NoSuchBucket (the bucket does not "
                            "exist); create the bucket or correct its name");
}

TEST_CASE("a wrong endpoint (nothing listening) fails fast: cannot connect") {
  backup::S3Location loc;
  loc.endpoint = "http://127.0.0.1:" + std::to_string(free_port());
  loc.bucket = "b";
  loc.force_path_style = true;
  auto e = fails_fast(loc, s3_credentials());
  CHECK(e.kind == base::ErrorKind::CannotConnect);
  CHECK(e.one_line().rfind("s3://b/k/x.db at \"" + loc.endpoint + "\": cannot connect: ", 0) == 0);
  CHECK(e.one_line().find("check the S3 endpoint URL") != std::string::npos);
}

TEST_CASE("a wrong region is named with the region the server expects") {
  Bucket b("s3-region");
  auto loc = b.location();
  loc.region = "eu-west-3";
  auto e = fails_fast(loc, s3_credentials());
  CHECK(e.one_line().find("the server expects region \"us-east-1\"") != std::string::npos);
}

TEST_CASE("https is verified: a plain-http server behind an https URL fails as TLS, not silently") {
  backup::S3Location loc;
  std::string ep = e2e::var("TESTENV_S3_ENDPOINT");
  loc.endpoint = "https://" + ep.substr(ep.find("://") + 3);
  loc.bucket = "b";
  loc.force_path_style = true;
  auto e = fails_fast(loc, s3_credentials());
  CHECK(e.kind == base::ErrorKind::CannotConnect);
}

TEST_CASE("https with a certificate of an unknown CA is refused; with that CA given, uploads work (unsigned payload)") {
  // A second versitygw of the test's own, serving TLS with a self-signed
  // certificate for 127.0.0.1.
  char tmpl[] = "/tmp/s3-tls-test.XXXXXX";
  REQUIRE(::mkdtemp(tmpl) != nullptr);
  std::string dir = tmpl;
  std::filesystem::create_directories(dir + "/root/tls-bucket");
  auto cert = e2e::run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                        "/CN=s3-tls-test", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", dir + "/tls.key",
                        "-out", dir + "/tls.crt"});
  REQUIRE_MESSAGE(cert.rc == 0, cert.err);
  int port = free_port();
  ::setenv("ROOT_ACCESS_KEY", e2e::var("TESTENV_S3_ACCESS_KEY").c_str(), 1);
  ::setenv("ROOT_SECRET_KEY", e2e::var("TESTENV_S3_SECRET_KEY").c_str(), 1);
  {
    Child gw({e2e::var("TESTENV_S3_BIN") + "/versitygw", "--port", "127.0.0.1:" + std::to_string(port), "--cert",
              dir + "/tls.crt", "--key", dir + "/tls.key", "--quiet", "posix", dir + "/root"},
             dir + "/versitygw.log");
    ::unsetenv("ROOT_ACCESS_KEY");
    ::unsetenv("ROOT_SECRET_KEY");
    backup::S3Location loc;
    loc.endpoint = "https://127.0.0.1:" + std::to_string(port);
    loc.bucket = "tls-bucket";
    loc.force_path_style = true;
    bool up = false;
    for (int i = 0; i < 50 && !up; ++i) {
      up = e2e::run({"curl", "-s", "-o", "/dev/null", "--cacert", dir + "/tls.crt", loc.endpoint + "/"}).rc == 0;
      if (!up) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    REQUIRE_MESSAGE(up, "versitygw with TLS did not start; see " << dir << "/versitygw.log");

    auto e = fails_fast(loc, s3_credentials());
    CHECK(e.kind == base::ErrorKind::CannotConnect);
    CHECK(e.reason == "TLSFailed");
    CHECK(e.one_line().find("TLS failed") != std::string::npos);

    loc.ca_file = dir + "/tls.crt";
    backup::S3SinkOptions o;
    o.part_size = backup::kS3MinPartSize;
    o.sha256_metadata_key = "etcd-snapshot-sha256";
    std::string data = pattern((5u << 20) + 777, 9);
    auto sink = must(backup::S3Sink::create(loc, s3_credentials(), "over/tls.db", o), "create over https");
    must(stream(*sink, data), "write");
    must(sink->commit(), "commit");
    CHECK(sink->result().parts == 2);
    std::ifstream f(dir + "/root/tls-bucket/over/tls.db", std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    CHECK(ss.str() == data);
  }
  std::filesystem::remove_all(dir);
}
