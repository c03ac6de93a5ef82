// kubectl-etcd restore's read-only checks (docs/restore.md#steps,
// docs/restore.md#auth) against a real apiserver with the real CRDs and a
// real S3 server: `--dry-run` refuses what the run refuses, with the same
// exit code and error line, and a snapshot saved from a real etcd with auth
// enabled is found so (its bbolt `auth` bucket) and refused by both, while
// the object is still printed for the user to complete.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "testenv.h"

using json = nlohmann::json;

namespace {

std::string error_line(const std::string& err) {
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("error:", 0) == 0) return line;
  }
  return {};
}

}  // namespace

TEST_CASE("restore --dry-run checks what the run checks; an auth-enabled snapshot is refused by both") {
  e2e::Namespace ns_holder("e2e-restore-check");
  const std::string ns = ns_holder.name();
  const char* tool_env = std::getenv("KUBECTL_ETCD");
  REQUIRE_MESSAGE(tool_env != nullptr, "KUBECTL_ETCD is not set (meson sets it)");
  const std::string tool = tool_env;

  // Two sources: plain, and TLS with auth enabled (root by client certificate).
  e2e::EtcdClusterOptions plain_options;
  plain_options.members = 1;
  e2e::EtcdCluster plain(plain_options);
  plain.ctl({"put", "/k", "v"});
  e2e::EtcdClusterOptions auth_options;
  auth_options.members = 1;
  auth_options.tls = true;
  auth_options.auth = true;
  e2e::EtcdCluster secured(auth_options);
  REQUIRE(secured.ctl({"auth", "status"}).find("Authentication Status: true") != std::string::npos);
  const std::string dir = e2e::var("TESTENV_DIR") + "/" + ns;
  std::filesystem::create_directories(dir);
  const std::string plain_file = dir + "/plain.db", auth_file = dir + "/auth.db";
  plain.ctl({"snapshot", "save", plain_file});
  secured.ctl({"snapshot", "save", auth_file});

  const std::string bucket = e2e::unique_name("restore-check");
  std::filesystem::create_directory(e2e::var("TESTENV_S3_DIR") + "/" + bucket);
  e2e::kubectl({"-n", ns, "create", "secret", "generic", "s3-creds",
                "--from-literal=AWS_ACCESS_KEY_ID=" + e2e::var("TESTENV_S3_ACCESS_KEY"),
                "--from-literal=AWS_SECRET_ACCESS_KEY=" + e2e::var("TESTENV_S3_SECRET_KEY")});
  auto restore = [&](const std::string& name, std::vector<std::string> args) {
    std::vector<std::string> argv{tool, "restore", name, "-n", ns, "--version", "3.6.11", "--replicas", "1",
                                  "--s3-endpoint", e2e::var("TESTENV_S3_ENDPOINT"), "--s3-bucket", bucket,
                                  "--s3-secret", "s3-creds", "--s3-force-path-style"};
    argv.insert(argv.end(), args.begin(), args.end());
    return e2e::run(argv, {{"NO_COLOR", "1"}});
  };
  auto nothing_written = [&](const std::string& name) {
    CHECK(e2e::kubectl_result({"-n", ns, "get", "etcdclusters.etcd-operator.cozystack.io", name}).rc != 0);
    CHECK(std::filesystem::is_empty(e2e::var("TESTENV_S3_DIR") + "/" + bucket));
  };

  // The plain snapshot: the dry-run checks everything, finds auth off and
  // leaves the two writes pending.
  auto ok = restore("etcd-plain", {"--file", plain_file, "--dry-run", "-o", "json"});
  INFO("plain dry-run: " << ok.out << ok.err);
  REQUIRE(ok.rc == 0);
  std::map<std::string, std::string> checks;
  const json doc = json::parse(ok.out);
  for (const auto& c : doc.value("checks", json::array())) checks[c["step"]] = c["outcome"];
  CHECK(checks == std::map<std::string, std::string>{{"verify-file", "done"},
                                                     {"read-credentials", "done"},
                                                     {"upload", "pending"},
                                                     {"server-dry-run", "did"},
                                                     {"create", "pending"}});
  CHECK(ok.out.find("auth disabled") != std::string::npos);
  nothing_written("etcd-plain");

  // The auth-enabled snapshot: refused (3) by the run and by the dry-run
  // with the same line; the dry-run still prints the object to complete.
  auto dry = restore("etcd-auth", {"--file", auth_file, "--dry-run", "-o", "yaml"});
  auto run = restore("etcd-auth", {"--file", auth_file});
  INFO("auth dry-run: " << dry.out << dry.err << "\nauth run: " << run.out << run.err);
  CHECK(run.rc == 3);
  CHECK(dry.rc == 3);
  CHECK(error_line(run.err).find("the snapshot has auth enabled") != std::string::npos);
  CHECK(error_line(dry.err) == error_line(run.err));
  CHECK(dry.out.find("kind: EtcdCluster") != std::string::npos);
  CHECK(dry.out.find("auth enabled") != std::string::npos);
  nothing_written("etcd-auth");

  // Read-only failures the run finds before writing, found by the dry-run alike.
  const std::string cut = dir + "/cut.db";
  {
    std::ifstream in(plain_file, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 512);
  }
  const std::vector<std::pair<std::vector<std::string>, int>> bad = {
      {{"--file", cut}, 1},
      {{"--file", dir + "/no-such.db"}, 6},
      {{"--s3-key", "no-such.db"}, 6},
  };
  for (const auto& row : bad) {
    // No structured binding: clang refuses one captured by INFO's lambda.
    const auto& args = row.first;
    const int rc = row.second;
    auto r = restore("etcd-bad", args);
    auto with_dry = args;
    with_dry.push_back("--dry-run");
    auto d = restore("etcd-bad", with_dry);
    INFO(args.front() << " " << args.back() << ": run " << r.rc << " " << r.err << "; dry-run " << d.rc << " " << d.err);
    CHECK(r.rc == rc);
    CHECK(d.rc == rc);
    CHECK_FALSE(error_line(r.err).empty());
    CHECK(error_line(d.err) == error_line(r.err));
  }
  nothing_written("etcd-bad");
}
