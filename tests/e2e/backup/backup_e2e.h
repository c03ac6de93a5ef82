// Helpers of the e2e tests of lib/backup: the environment's S3 server
// (versitygw, TESTENV_S3_*), a bucket of one's own, etcd clusters filled with
// checkable data, and the proof that a snapshot is good: restored with etcd's
// own tool of the matching version into a fresh data dir, started, and every
// key read back.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "backup/s3_client.h"
#include "backup/s3_config.h"
#include "base/sha256.h"
#include "base/sink.h"
#include "etcd/client.h"
#include "must.h"
#include "testenv.h"

namespace backup_e2e {

inline const std::vector<std::string>& versions() {
  static const std::vector<std::string> v{"3.4", "3.5", "3.6"};
  return v;
}

inline backup::S3Credentials s3_credentials() {
  return {e2e::var("TESTENV_S3_ACCESS_KEY"), e2e::var("TESTENV_S3_SECRET_KEY"), ""};
}

// Bytes that do not repeat within a part, different for each seed.
inline std::string pattern(std::size_t n, unsigned seed) {
  std::string s(n, '\0');
  std::uint32_t x = seed * 2654435761u + 1;
  for (auto& c : s) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    c = static_cast<char>(x);
  }
  return s;
}

// The object's bytes, read through lib/backup's client.
inline std::string download(const backup::S3Location& loc, const std::string& key) {
  auto client = e2e::must(backup::S3Client::create(loc, s3_credentials()), "client");
  std::string out;
  e2e::must(client->get(key, [&](std::string_view d) {
    out.append(d);
    return true;
  }),
       "get");
  return out;
}

// Writes in uneven chunks, as a gRPC stream does.
inline base::Status write_chunks(base::Sink& s, const std::string& data) {
  std::size_t off = 0, step = 1;
  while (off < data.size()) {
    std::size_t n = std::min(data.size() - off, (step * 7919) % (3u << 20) + 1);
    if (auto st = s.write(std::string_view(data).substr(off, n)); !st) return st;
    off += n;
    ++step;
  }
  return {};
}

// write_chunks, then the SHA-256 told, as a snapshot's trailer tells it.
inline base::Status stream(base::Sink& s, const std::string& data) {
  if (auto st = write_chunks(s, data); !st) return st;
  s.written_sha256(base::sha256(data));
  return {};
}

// A bucket of the test's own: a folder under the server's POSIX root.
class Bucket {
 public:
  explicit Bucket(std::string_view prefix) : name_(e2e::unique_name(prefix)) {
    std::filesystem::create_directory(dir());
  }
  ~Bucket() { std::filesystem::remove_all(dir()); }
  Bucket(const Bucket&) = delete;
  Bucket& operator=(const Bucket&) = delete;
  const std::string& name() const { return name_; }
  std::string dir() const { return e2e::var("TESTENV_S3_DIR") + "/" + name_; }
  backup::S3Location location(bool path_style = true) const {
    backup::S3Location l;
    l.endpoint = e2e::var("TESTENV_S3_ENDPOINT");
    l.bucket = name_;
    l.force_path_style = path_style;
    return l;
  }
  // The same bucket through the environment's https gateway, verified
  // against the environment's CA.
  backup::S3Location https_location() const {
    backup::S3Location l = location();
    l.endpoint = e2e::var("TESTENV_S3_HTTPS_ENDPOINT");
    l.ca_file = e2e::var("TESTENV_S3_CA");
    return l;
  }

 private:
  std::string name_;
};

using e2e::must;

inline std::unique_ptr<etcd::Client> client_for(const std::vector<std::string>& endpoints,
                                                const e2e::EtcdCluster* tls_of = nullptr) {
  etcd::Config cfg;
  cfg.endpoints = endpoints;
  if (tls_of != nullptr && tls_of->info().value("tls", false)) {
    cfg.tls.ca_file = tls_of->pki("ca.crt");
    cfg.tls.cert_file = tls_of->pki("client.crt");
    cfg.tls.key_file = tls_of->pki("client.key");
  }
  cfg.dial_timeout = std::chrono::seconds(3);
  cfg.call_timeout = std::chrono::seconds(10);
  return must(etcd::Client::create(std::move(cfg)), "etcd client");
}

// The value of key i: its own bytes, so a restored db proves every key.
inline std::string value_of(int i, std::size_t size) {
  std::string v = "value-" + std::to_string(i) + "-";
  v.reserve(size);
  while (v.size() < size) v += static_cast<char>('a' + (i + v.size()) % 26);
  return v;
}

inline std::string key_of(int i) { return "/backup-e2e/" + std::to_string(100000 + i); }

// Writes n keys of `size` bytes; answers the revision of the last put.
inline std::int64_t fill(etcd::Client& c, int n, std::size_t size) {
  std::int64_t rev = 0;
  for (int i = 0; i < n; ++i) rev = must(c.put(key_of(i), value_of(i, size)), "put").revision;
  return rev;
}

inline int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

// A child process, killed (SIGKILL) and reaped when the object goes.
// posix_spawn, not fork: fork handlers of gRPC would shut down the test's
// own connections in the parent.
class Child {
 public:
  explicit Child(const std::vector<std::string>& argv, const std::string& log) {
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    if (posix_spawn(&pid_, args[0], &fa, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&fa);
    REQUIRE_MESSAGE(pid_ > 0, "cannot start " << argv[0]);
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int st = 0;
      ::waitpid(pid_, &st, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

 private:
  pid_t pid_ = -1;
};

// Restores `snapshot` with etcd's tool of `version` into a fresh data dir
// under `work`, starts one etcd on it and checks that keys 0..n-1 hold their
// values and the revision is at least `min_revision`.
inline void restore_and_check(const e2e::EtcdCluster& c, const std::string& version, const std::string& snapshot,
                              const std::string& work, int n, std::size_t size, std::int64_t min_revision) {
  CAPTURE(snapshot);
  std::filesystem::create_directories(work);
  std::string data = work + "/restored.etcd";
  int client_port = free_port(), peer_port = free_port();
  // A db with auth on (users without password, certificate CN) is only
  // readable over TLS with the cluster's client certificate.
  const bool tls = c.info().value("tls", false);
  std::string peer = "http://127.0.0.1:" + std::to_string(peer_port);
  std::string client = std::string(tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(client_port);
  std::vector<std::string> args = {"snapshot", "restore", snapshot, "--data-dir", data, "--name", "restored",
                                   "--initial-cluster", "restored=" + peer, "--initial-advertise-peer-urls", peer};
  e2e::CommandResult r;
  if (version == "3.4") {
    args.insert(args.begin(), c.etcdctl_path());
    r = e2e::run(args, {{"ETCDCTL_API", "3"}});
  } else {
    args.insert(args.begin(), c.etcdutl_path());
    r = e2e::run(args);
  }
  REQUIRE_MESSAGE(r.rc == 0, "restore: " << r.err << r.out);

  std::string bin = std::filesystem::path(c.etcdctl_path()).parent_path().string() + "/etcd";
  std::vector<std::string> etcd_args = {bin, "--name", "restored", "--data-dir", data, "--listen-client-urls", client,
                                        "--advertise-client-urls", client, "--listen-peer-urls", peer,
                                        "--initial-advertise-peer-urls", peer, "--initial-cluster", "restored=" + peer};
  std::vector<std::string> ctl_tls;
  if (tls) {
    etcd_args.insert(etcd_args.end(), {"--cert-file", c.pki("server.crt"), "--key-file", c.pki("server.key"),
                                       "--trusted-ca-file", c.pki("ca.crt"), "--client-cert-auth"});
    ctl_tls = {"--cacert", c.pki("ca.crt"), "--cert", c.pki("client.crt"), "--key", c.pki("client.key")};
  }
  Child etcd(etcd_args, work + "/restored.log");
  // Wait with etcdctl first: a client made before the server listens would
  // test gRPC's reconnect backoff, not the snapshot.
  std::string last_error;
  bool up = false;
  for (int i = 0; i < 100 && !up; ++i) {
    std::vector<std::string> health = {c.etcdctl_path(), "--endpoints", client};
    health.insert(health.end(), ctl_tls.begin(), ctl_tls.end());
    health.insert(health.end(), {"endpoint", "health"});
    auto h = e2e::run(health, {{"ETCDCTL_API", "3"}});
    up = h.rc == 0;
    if (!up) {
      last_error = h.err;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  std::int64_t rev = 0;
  auto cl = client_for({client}, &c);
  if (up) {
    auto s = cl->status(client);
    if (s.ok()) rev = s->header.revision;
    else last_error = s.error().one_line();
  }
  if (rev == 0) {
    std::ifstream f(work + "/restored.log");
    std::stringstream ss;
    ss << f.rdbuf();
    std::string log = ss.str();
    FAIL("the restored etcd did not answer (" << last_error << "); the end of its log:\n" << log.substr(log.size() > 3000 ? log.size() - 3000 : 0));
  }
  CHECK(rev >= min_revision);
  int good = 0;
  for (int i = 0; i < n; ++i) {
    auto got = must(cl->range(key_of(i)), "get");
    if (got.kvs.size() == 1 && got.kvs[0].value == value_of(i, size)) ++good;
  }
  CHECK(good == n);
}

// The process's peak RSS so far, in bytes.
inline std::uint64_t peak_rss() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<std::uint64_t>(u.ru_maxrss) * 1024;
}

}  // namespace backup_e2e
