// Streams a snapshot to S3 with lib/backup, for bench/s3_upload.sh to time
// and to measure (peak RSS under /usr/bin/time -v).
//   s3_upload file FILE KEY: FILE through S3Sink in 64 KiB writes (as a gRPC
//     stream delivers them);
//   s3_upload etcd ENDPOINT KEY: stream_backup of that etcd member straight to S3;
//   s3_upload etcd-dir ENDPOINT DIR: the same to a local directory (no S3).
// S3 coordinates from the environment: TESTENV_S3_ENDPOINT (or BENCH_S3_ENDPOINT,
// with BENCH_S3_CA to verify it over https), TESTENV_S3_ACCESS_KEY,
// TESTENV_S3_SECRET_KEY, BENCH_BUCKET. BENCH_CRC32C=0 turns the CRC32C part
// checksums off (S3SinkOptions::checksum_crc32c): Content-MD5 as before.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backup/s3_sink.h"
#include "backup/stream_backup.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? v : "";
}

int fail(const base::Error& e) {
  std::fprintf(stderr, "error: %s\n", e.one_line().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s file FILE KEY | etcd ENDPOINT KEY\n", argv[0]);
    return 128;
  }
  std::string mode = argv[1], what = argv[2], key = argv[3];
  backup::S3Location loc;
  loc.endpoint = env("BENCH_S3_ENDPOINT").empty() ? env("TESTENV_S3_ENDPOINT") : env("BENCH_S3_ENDPOINT");
  loc.ca_file = env("BENCH_S3_CA");
  const bool crc32c = env("BENCH_CRC32C") != "0";
  loc.bucket = env("BENCH_BUCKET");
  loc.force_path_style = true;
  backup::S3Credentials creds{env("TESTENV_S3_ACCESS_KEY"), env("TESTENV_S3_SECRET_KEY"), ""};
  auto start = std::chrono::steady_clock::now();
  std::uint64_t bytes = 0;
  int parts = 0;
  if (mode == "file") {
    backup::S3SinkOptions o;
    if (!env("BENCH_PART_MIB").empty()) o.part_size = std::stoul(env("BENCH_PART_MIB")) << 20;
    if (!env("BENCH_PARTS_IN_FLIGHT").empty()) o.parts_in_flight = std::stoul(env("BENCH_PARTS_IN_FLIGHT"));
    o.checksum_crc32c = crc32c;
    auto sink = backup::S3Sink::create(loc, creds, key, o);
    if (!sink) return fail(sink.error());
    std::ifstream in(what, std::ios::binary);
    std::vector<char> buf(64 * 1024);
    base::Sha256 sha;  // the writer's to tell, as a snapshot receiver does
    while (in) {
      in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      auto n = static_cast<std::size_t>(in.gcount());
      if (n == 0) break;
      std::string_view chunk(buf.data(), n);
      sha.update(chunk);
      if (auto s = (*sink)->write(chunk); !s) return fail(s.error());
    }
    (*sink)->written_sha256(sha.finish());
    if (auto s = (*sink)->commit(); !s) return fail(s.error());
    bytes = (*sink)->result().bytes;
    parts = (*sink)->result().parts;
  } else if (mode == "etcd" || mode == "etcd-dir") {
    etcd::Config cfg;
    cfg.endpoints = {what};
    auto client = etcd::Client::create(cfg);
    if (!client) return fail(client.error());
    backup::StreamBackupRequest req;
    req.ns = "bench";
    req.cluster = "etcd";
    req.cluster_uid = "bench-uid";
    req.endpoints = {what};
    if (mode == "etcd") {
      auto slash = key.rfind('/');
      req.s3 = backup::S3Destination{loc, creds, slash == std::string::npos ? "" : key.substr(0, slash)};
      if (!env("BENCH_PART_MIB").empty()) req.s3->part_size = std::stoul(env("BENCH_PART_MIB")) << 20;
      if (!env("BENCH_PARTS_IN_FLIGHT").empty()) req.s3->parts_in_flight = std::stoul(env("BENCH_PARTS_IN_FLIGHT"));
      req.s3->checksum_crc32c = crc32c;
    } else {
      req.dir = key;
    }
    auto r = backup::stream_backup(**client, req);
    if (!r) return fail(r.error());
    bytes = r->bytes;
    parts = r->s3 ? r->s3->parts : 0;
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 128;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu bytes in %.2f s (%.1f MB/s), %d parts\n", static_cast<unsigned long long>(bytes), secs,
              static_cast<double>(bytes) / 1e6 / secs, parts);
  return 0;
}
