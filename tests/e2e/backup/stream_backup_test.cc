// stream_backup against real etcd 3.4, 3.5 and 3.6 clusters and the real S3
// server: a db of more than 64 MB to a directory and S3 at once (multipart),
// a small one (single PUT), each S3 object downloaded and restored with the
// matching etcd tool into a fresh data dir, started, and every key checked.
// Member failover, destination failures before any byte is read, the owner rule (docs/rules.md#safety-backup).
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "backup/file_sink.h"
#include "backup/stream_backup.h"
#include "backup_e2e.h"
#include "base/sha256.h"
#include "operator/backup_names.h"

using namespace backup_e2e;

namespace {

e2e::EtcdClusterOptions options(const std::string& version, int members = 3, bool tls_auth = false) {
  e2e::EtcdClusterOptions o;
  o.version = version;
  o.members = members;
  o.tls = tls_auth;
  o.auth = tls_auth;
  o.extra = {"--quota-backend-bytes", "1073741824"};
  return o;
}

std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool exists(const std::string& p) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0;
}

void download_to(const Bucket& b, const std::string& key, const std::string& path) {
  auto client = must(backup::S3Client::create(b.location(), s3_credentials()), "client");
  auto file = must(backup::FileSink::create(path), "file");
  must(client->get(key, [&](std::string_view d) { return file->write(d).ok(); }), "download");
  must(file->commit(), "commit download");
}

backup::StreamBackupRequest request(const e2e::EtcdCluster& c, const std::string& dir, const Bucket* bucket,
                                    const std::string& prefix = "etcd/") {
  backup::StreamBackupRequest r;
  r.ns = "ns1";
  r.cluster = "etcd";
  r.cluster_uid = "6f1d2c3b-aaaa-4bbb-8ccc-" + std::to_string(::getpid());
  r.endpoints = c.client_urls();
  r.dir = dir;
  if (bucket != nullptr) r.s3 = backup::S3Destination{bucket->location(), s3_credentials(), prefix};
  return r;
}

// https: through the environment's https gateway, where each part carries
// its CRC32C (docs/rules.md#s3-part-checksums).
void large_to_dir_and_s3(const std::string& version, bool https = false) {
  CAPTURE(version);
  CAPTURE(https);
  e2e::EtcdCluster c(options(version));
  auto cl = client_for(c.client_urls());
  const int n = 264;
  const std::size_t size = 256 * 1024;  // 66 MiB of values
  std::int64_t rev = fill(*cl, n, size);
  Bucket b("stream-large");
  std::string dir = c.dir() + "/backups";
  std::filesystem::create_directories(dir);

  auto req = request(c, dir, &b);
  if (https) req.s3->location = b.https_location();
  std::uint64_t last_done = 0, calls = 0;
  req.progress = [&](const std::string&, std::uint64_t done, std::uint64_t) {
    last_done = done;
    ++calls;
  };
  auto rss_before = peak_rss();
  auto t0 = std::chrono::steady_clock::now();
  auto r = must(backup::stream_backup(*cl, req), "stream_backup");
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto rss_growth = peak_rss() - rss_before;
  MESSAGE("etcd " << version << ": " << r.bytes / (1 << 20) << " MiB from " << r.endpoint << " in " << secs
                  << " s; peak RSS grew by " << rss_growth / (1 << 20) << " MiB");

  CHECK(r.bytes > 64u * 1000 * 1000);
  CHECK(r.bytes == last_done);
  CHECK(calls > 10);
  CHECK(r.revision >= rev);
  CHECK(r.passed_over.empty());
  // One part buffer, not the snapshot: far below the 64+ MB streamed.
  CHECK(rss_growth < 40u << 20);
  // The file: complete, 0600, atomic, with its owner mark.
  std::string path = dir + "/" + op::migration_snapshot_file("ns1", "etcd");
  REQUIRE(r.file == path);
  struct stat st{};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK(static_cast<std::uint64_t>(st.st_size) == r.bytes);
  CHECK((st.st_mode & 07777) == 0600);
  CHECK_FALSE(exists(path + ".part"));
  CHECK(slurp(op::snapshot_uid_file(path)) == req.cluster_uid);
  std::string bytes = slurp(path);
  CHECK(base::to_hex(base::sha256(bytes)) == r.stored_sha256);
  CHECK(base::to_hex(base::sha256(std::string_view(bytes).substr(0, bytes.size() - 32))) == r.sha256);
  bytes.clear();
  bytes.shrink_to_fit();
  // The object: multipart, same bytes, metadata.
  REQUIRE(r.s3.has_value());
  CHECK(r.s3->uri == "s3://" + b.name() + "/etcd/ns1-etcd-migration.db");
  CHECK(r.s3->parts == static_cast<int>((r.bytes + backup::kS3DefaultPartSize - 1) / backup::kS3DefaultPartSize));
  CHECK(r.destinations == std::vector<std::string>{r.s3->uri, path});
  auto client = must(backup::S3Client::create(b.location(), s3_credentials()), "client");
  auto head = must(client->head("etcd/ns1-etcd-migration.db"), "head");
  REQUIRE(head.has_value());
  CHECK(head->size == r.bytes);
  CHECK(head->metadata[std::string(op::kSnapshotMetaUid)] == req.cluster_uid);
  CHECK(head->metadata[std::string(op::kSnapshotMetaRevision)] == std::to_string(r.revision));
  CHECK(head->metadata[std::string(op::kSnapshotMetaSha256)] == r.stored_sha256);
  if (https) {
    // The server's composite checksum of the parts' CRC32Cs, read back.
    CHECK(r.s3->crc32c.size() > 8);
    CHECK(r.s3->crc32c.substr(8) == "-" + std::to_string(r.s3->parts));
    CHECK(must(client->head("etcd/ns1-etcd-migration.db", true), "head")->crc32c == r.s3->crc32c);
  } else {
    CHECK(r.s3->crc32c.empty());
  }

  std::string downloaded = c.dir() + "/downloaded.db";
  download_to(b, "etcd/ns1-etcd-migration.db", downloaded);
  CHECK(base::to_hex(base::sha256(slurp(downloaded))) == r.stored_sha256);
  restore_and_check(c, version, downloaded, c.dir() + "/restore-s3", n, size, rev);
}

void small_single_put(const std::string& version, bool tls_auth) {
  CAPTURE(version);
  CAPTURE(tls_auth);
  e2e::EtcdCluster c(options(version, 1, tls_auth));
  auto cl = client_for(c.client_urls(), &c);
  const int n = 50;
  std::int64_t rev = fill(*cl, n, 1000);
  Bucket b("stream-small");
  auto req = request(c, "", &b, "");
  auto r = must(backup::stream_backup(*cl, req), "stream_backup");
  REQUIRE(r.s3.has_value());
  CHECK(r.s3->parts == 0);
  CHECK(r.s3->uri == "s3://" + b.name() + "/ns1-etcd-migration.db");
  CHECK(r.file.empty());
  CHECK(r.destinations == std::vector<std::string>{r.s3->uri});
  std::string downloaded = c.dir() + "/small.db";
  download_to(b, "ns1-etcd-migration.db", downloaded);
  restore_and_check(c, version, downloaded, c.dir() + "/restore-small", n, 1000, rev);
}

}  // namespace

TEST_CASE("etcd 3.4: a 64+ MB db streamed to a directory and S3 (multipart) at once, restored, every key") {
  large_to_dir_and_s3("3.4");
}
TEST_CASE("etcd 3.5: a 64+ MB db streamed to a directory and S3 (multipart) at once, restored, every key") {
  large_to_dir_and_s3("3.5");
}
TEST_CASE("etcd 3.6: a 64+ MB db streamed to a directory and S3 over https (CRC32C parts) at once, restored, every key") {
  large_to_dir_and_s3("3.6", true);
}

TEST_CASE("a small db goes to S3 in one PUT (key prefix empty), restored on etcd 3.4, 3.5 and 3.6") {
  for (const auto& v : versions()) small_single_put(v, false);
}

TEST_CASE("a cluster as the legacy operator runs it (TLS, auth by client certificate) on etcd 3.4 and 3.6") {
  small_single_put("3.4", true);
  small_single_put("3.6", true);
}

TEST_CASE("a stopped member is passed over; the snapshot comes from a healthy one") {
  e2e::EtcdCluster c(options("3.6"));
  auto cl = client_for(c.client_urls());
  std::int64_t rev = fill(*cl, 20, 100);
  c.act("stop", c.member_names().at(0));
  std::string dir = c.dir() + "/b";
  std::filesystem::create_directories(dir);
  auto req = request(c, dir, nullptr);
  auto r = must(backup::stream_backup(*cl, req), "stream_backup");
  CHECK(r.endpoint != c.client_urls().at(0));
  REQUIRE(r.passed_over.size() == 1);
  CHECK(r.passed_over[0].rfind(c.client_urls().at(0), 0) == 0);
  restore_and_check(c, "3.6", r.file, c.dir() + "/restore", 20, 100, rev);
}

TEST_CASE("a missing bucket, a bad credential, a wrong endpoint: each fails fast before etcd is read, nothing left") {
  e2e::EtcdCluster c(options("3.5", 1));
  auto cl = client_for(c.client_urls());
  fill(*cl, 5, 100);
  Bucket b("stream-fail");
  struct Case {
    const char* name;
    base::ErrorKind kind;
    const char* text;
  };
  for (const auto& k : {Case{"missing bucket", base::ErrorKind::NotFound, "NoSuchBucket"},
                        Case{"bad secret", base::ErrorKind::PermissionDenied, "SignatureDoesNotMatch"},
                        Case{"wrong endpoint", base::ErrorKind::CannotConnect, "cannot connect"}}) {
    CAPTURE(k.name);
    std::string dir = c.dir() + "/b-" + std::to_string(static_cast<int>(k.kind));
    std::filesystem::create_directories(dir);
    auto req = request(c, dir, &b);
    if (std::string(k.name) == "missing bucket") req.s3->location.bucket = e2e::unique_name("no-such-bucket");
    if (std::string(k.name) == "bad secret") req.s3->credentials.secret_access_key = "not-the-secret";
    if (std::string(k.name) == "wrong endpoint") req.s3->location.endpoint = "http://127.0.0.1:" + std::to_string(free_port());
    bool streamed = false;
    req.progress = [&](const std::string&, std::uint64_t, std::uint64_t) { streamed = true; };
    auto t0 = std::chrono::steady_clock::now();
    auto r = backup::stream_backup(*cl, req);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    REQUIRE_FALSE(r.ok());
    MESSAGE(r.error().one_line());
    CHECK(secs < 3.0);
    CHECK(r.error().kind == k.kind);
    CHECK(r.error().one_line().find(k.text) != std::string::npos);
    CHECK(r.error().one_line().find('\n') == std::string::npos);
    CHECK(r.error().one_line().find(e2e::var("TESTENV_S3_SECRET_KEY")) == std::string::npos);
    CHECK_FALSE(streamed);
    CHECK(std::filesystem::is_empty(dir));  // no file, no part file, no owner mark
    CHECK(std::filesystem::is_empty(b.dir()));
  }
}

TEST_CASE("a local artefact of another cluster is refused and left as it is; our own is replaced") {
  e2e::EtcdCluster c(options("3.4", 1));
  auto cl = client_for(c.client_urls());
  fill(*cl, 5, 100);
  std::string dir = c.dir() + "/b";
  std::filesystem::create_directories(dir);
  std::string path = dir + "/ns1-etcd-migration.db";
  std::ofstream(path) << "another cluster's backup";
  std::ofstream(path + ".uid") << "some-other-uid";
  auto req = request(c, dir, nullptr);
  auto r = backup::stream_backup(*cl, req);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::Refused);
  CHECK(r.error().one_line() == "file \"" + path +
                                    "\": exists and was not written for this cluster (it belongs to cluster UID "
                                    "\"some-other-uid\"); move it away or choose another --backup-dir");
  CHECK(slurp(path) == "another cluster's backup");
  // Ours: replaced.
  std::ofstream(path + ".uid") << req.cluster_uid;
  auto ok = must(backup::stream_backup(*cl, req), "own artefact");
  CHECK(slurp(path).size() == ok.bytes);
}

TEST_CASE("cancelled mid-stream (SIGINT): Interrupted, no file, no part file, no object, no pending upload") {
  e2e::EtcdCluster c(options("3.6", 1));
  auto cl = client_for(c.client_urls());
  fill(*cl, 100, 256 * 1024);
  Bucket b("stream-cancel");
  std::string dir = c.dir() + "/b";
  std::filesystem::create_directories(dir);
  auto req = request(c, dir, &b);
  std::uint64_t seen = 0;
  req.progress = [&](const std::string&, std::uint64_t done, std::uint64_t) { seen = done; };
  // After two parts went to S3: a multipart upload is under way.
  req.cancelled = [&] { return seen > 2 * backup::kS3DefaultPartSize + (1u << 20); };
  auto r = backup::stream_backup(*cl, req);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::Interrupted);
  CHECK(r.error().one_line() == "etcdcluster \"ns1/etcd\": backup stopped before it was complete; nothing was kept");
  std::string path = dir + "/ns1-etcd-migration.db";
  CHECK_FALSE(exists(path));
  CHECK_FALSE(exists(path + ".part"));
  // Only the owner mark stays: it lets the next run write the artefact.
  CHECK(slurp(op::snapshot_uid_file(path)) == req.cluster_uid);
  auto client = must(backup::S3Client::create(b.location(), s3_credentials()), "client");
  CHECK_FALSE(must(client->head("etcd/ns1-etcd-migration.db"), "head").has_value());
  auto uploads = e2e::run({"curl", "-sS", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u",
                           e2e::var("TESTENV_S3_ACCESS_KEY") + ":" + e2e::var("TESTENV_S3_SECRET_KEY"), "-H",
                           "x-amz-content-sha256: " + base::to_hex(base::sha256("")),
                           e2e::var("TESTENV_S3_ENDPOINT") + "/" + b.name() + "?uploads="});
  REQUIRE(uploads.rc == 0);
  CHECK(uploads.out.find("<Upload>") == std::string::npos);
}
