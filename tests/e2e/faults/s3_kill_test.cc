// The S3 server SIGKILLed in the middle of a multipart upload of
// `etcd-migrate adopt --apply`'s safety backup (docs/server-faults.md). The
// test runs its own versitygw (the environment's serves other tests) over a
// directory of its own, kills it once the first part is stored, and starts
// it again on the same port and directory. The run must fail before it
// changes the cluster's ownership, say which upload it could not abort, leave
// no object under the key; the same command run again aborts the leftover
// upload, stores the backup and finishes the adoption.
#include <regex>
#include <set>

#include "apiserver_e2e.h"
#include "base/sha256.h"

using namespace faults_e2e;

namespace {

// A versitygw of the test's own with made-up credentials.
class S3Server {
 public:
  explicit S3Server(const std::string& dir)
      : dir_(dir), port_(std::to_string(backup_free_port())), access_("faults" + std::to_string(::getpid())),
        secret_("s3-secret-" + e2e::unique_name("k")) {
    std::filesystem::create_directories(dir_ + "/root");
    start();
  }
  ~S3Server() { kill(); }

  void start() {
    REQUIRE(proc_ == nullptr);
    std::filesystem::create_directories(dir_ + "/run");
    proc_ = std::make_unique<Background>(
        std::vector<std::string>{e2e::var("TESTENV_S3_BIN") + "/versitygw", "--port", "127.0.0.1:" + port_,
                                 "--keep-alive", "--quiet", "posix", dir_ + "/root"},
        dir_ + "/run", std::vector<std::string>{"ROOT_ACCESS_KEY=" + access_, "ROOT_SECRET_KEY=" + secret_});
    // Any HTTP answer (403 for an unsigned request) means it is up.
    REQUIRE(wait_for([&] { return e2e::run({"curl", "-sS", "-o", "/dev/null", endpoint() + "/"}).rc == 0; },
                     std::chrono::seconds(30), std::chrono::milliseconds(100)));
  }
  void kill() { proc_.reset(); }  // SIGKILL

  std::string endpoint() const { return "http://127.0.0.1:" + port_; }
  std::string root() const { return dir_ + "/root"; }
  const std::string& access() const { return access_; }
  const std::string& secret() const { return secret_; }

  // GET ?uploads of a bucket: the upload IDs still pending.
  std::set<std::string> pending_uploads(const std::string& bucket) const {
    auto r = e2e::run({"curl", "-sS", "--aws-sigv4", "aws:amz:us-east-1:s3", "-u", access_ + ":" + secret_, "-H",
                       "x-amz-content-sha256: " + base::to_hex(base::sha256("")), endpoint() + "/" + bucket + "?uploads="});
    REQUIRE_MESSAGE(r.rc == 0, r.err);
    INFO("ListMultipartUploads: " << r.out);
    REQUIRE(r.out.find("ListMultipartUploadsResult") != std::string::npos);
    std::set<std::string> ids;
    std::regex id("<UploadId>([^<]+)</UploadId>");
    for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), id); it != std::sregex_iterator(); ++it) {
      ids.insert((*it)[1]);
    }
    return ids;
  }

 private:
  static int backup_free_port() {
    auto r = e2e::run({"python3", "-c",
                       "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"});
    REQUIRE(r.rc == 0);
    return std::stoi(r.out);
  }
  std::string dir_, port_, access_, secret_;
  std::unique_ptr<Background> proc_;
};

// Files in the bucket outside versitygw's staging area: stored objects.
std::vector<std::string> objects(const std::string& bucket_dir) {
  std::vector<std::string> out;
  for (auto it = std::filesystem::recursive_directory_iterator(bucket_dir);
       it != std::filesystem::recursive_directory_iterator(); ++it) {
    if (it->path().filename() == ".sgwtmp") {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) out.push_back(it->path().string());
  }
  return out;
}

// The largest file under the staging area: a part being or been stored.
std::uintmax_t largest_staged(const std::string& bucket_dir) {
  std::uintmax_t most = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(bucket_dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().string().find(".sgwtmp") == std::string::npos) continue;
    if (it->is_regular_file(ec)) most = std::max(most, it->file_size(ec));
  }
  return most;
}

std::unique_ptr<etcd::Client> legacy_client(const e2e::LegacyFixture& f) {
  auto env = f.etcd_env();
  etcd::Config config;
  std::stringstream in(env["ETCD_IP_ENDPOINTS"]);
  for (std::string e; std::getline(in, e, ',');) config.endpoints.push_back(e);
  config.call_timeout = std::chrono::seconds(20);
  auto c = etcd::Client::create(config);
  REQUIRE(c.ok());
  return std::move(c).value();
}

}  // namespace

TEST_CASE("the S3 server killed mid-upload of the safety backup: no object, the upload named, a re-run converges") {
  e2e::Namespace ns("e2e-fault-s3");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6"});
  {
    // 32 MB: four parts of 8 MiB, so the upload is multipart and lasts.
    auto cl = legacy_client(f);
    fill(*cl, 32);
  }
  e2e::Before before = e2e::record(f);
  e2e::Writer writer(f);
  const std::string work = tmpdir("e2e-fault-s3");
  S3Server s3(work + "/s3");
  const std::string bucket = "backups";
  std::filesystem::create_directories(s3.root() + "/" + bucket);
  std::vector<std::string> args = adopt_args(f, e2e::var("KUBECONFIG"), e2e::backup_dir(f));
  args.insert(args.end(), {"--backup-s3-endpoint", s3.endpoint(), "--backup-s3-bucket", bucket,
                           "--backup-s3-force-path-style"});
  const std::vector<std::string> creds = {"AWS_ACCESS_KEY_ID=" + s3.access(), "AWS_SECRET_ACCESS_KEY=" + s3.secret(),
                                          "NO_COLOR=1"};

  Background adopt(args, work, creds);
  // Killed once a whole part (8 MiB) is staged: the upload is under way.
  bool staged = wait_for([&] { return largest_staged(s3.root() + "/" + bucket) >= (8u << 20); },
                         std::chrono::seconds(90), std::chrono::milliseconds(5));
  REQUIRE_MESSAGE(staged, "no part was stored: " << slurp(work + "/stderr"));
  s3.kill();
  auto r = adopt.collect(std::chrono::seconds(120));
  MESSAGE("killed-server run: rc " << r.rc << " after " << adopt.took() << " s\nstdout: " << r.out
                                    << "\nstderr: " << r.err);
  CHECK(r.rc != 0);
  CHECK(r.err.find(s3.secret()) == std::string::npos);
  CHECK(r.out.find(s3.secret()) == std::string::npos);
  CHECK_FALSE(adoption_finished(f));
  // The pods still belong to the StatefulSet: the backup comes before any re-own.
  auto sts = e2e::kubectl_result({"-n", ns.name(), "get", "statefulset", f.name(), "-o", "jsonpath={.metadata.deletionTimestamp}"});
  CHECK(sts.rc == 0);
  CHECK(sts.out.empty());

  s3.start();  // the same port and directory
  CHECK(objects(s3.root() + "/" + bucket).empty());
  auto pending = s3.pending_uploads(bucket);
  MESSAGE(pending.size() << " multipart upload(s) pending after the restart");
  // Each one the server still holds is named by the failed run.
  for (const auto& id : pending) {
    CHECK_MESSAGE((r.out + r.err).find(id) != std::string::npos, "upload " << id << " not reported");
  }

  auto resumed = e2e::run(args, {{"AWS_ACCESS_KEY_ID", s3.access()}, {"AWS_SECRET_ACCESS_KEY", s3.secret()},
                                 {"NO_COLOR", "1"}});
  INFO("re-run: " << resumed.out << resumed.err);
  CHECK(resumed.rc == 0);
  CHECK(s3.pending_uploads(bucket).empty());
  CHECK(objects(s3.root() + "/" + bucket).size() == 1);
  long long written = writer.stop();
  CHECK(writer.errors() == 0);
  e2e::check_adopted(f, before, false);
  e2e::check_keys(f, written);
  CHECK(e2e::etcd_migrate({"verify", "-n", ns.name(), f.name()}).rc == 0);
  e2e::run({"rm", "-rf", work});
}
