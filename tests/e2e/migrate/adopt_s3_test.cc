// etcd-migrate adopt --apply with its safety backup streamed to S3 (the
// environment's versitygw, which checks SigV4 signatures): the object under
// the reference's key with its owner, revision and sha256 metadata, restored
// with etcd's own tool of the cluster's version (etcdutl; etcdctl on 3.4,
// which has no etcdutl) into a fresh data dir, started, and every key
// compared with the live cluster. A bad credential, a missing Secret, a
// missing bucket and a wrong endpoint each stop the cluster's pipeline before
// anything changes: same object graph, auth still on.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../backup/backup_e2e.h"
#include "adopt_checks.h"
#include "base/sha256.h"

using json = nlohmann::json;

namespace {

std::string etcd_bin_dir(const e2e::LegacyFixture& f) {
  std::string v = f.info().value("version", "3.6");
  return e2e::var(v == "3.4" ? "TESTENV_ETCD_34" : v == "3.5" ? "TESTENV_ETCD_35" : "TESTENV_ETCD_36");
}

// Every key with its value and revisions, as etcdctl of `bin` sees them.
json all_keys(const e2e::CommandResult& r) {
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  json out = json::array();
  for (const auto& kv : json::parse(r.out).value("kvs", json::array())) {
    out.push_back({kv["key"], kv.value("value", ""), kv["create_revision"], kv["mod_revision"], kv["version"]});
  }
  return out;
}

// Restores `snapshot` with the version's own tool, starts one etcd on it and
// compares every key with the live cluster (nothing writes to it any more).
void restore_and_compare(const e2e::LegacyFixture& f, const std::string& snapshot, const std::string& work) {
  CAPTURE(snapshot);
  const std::string bin = etcd_bin_dir(f);
  const std::string data = work + "/restored.etcd";
  int client_port = backup_e2e::free_port(), peer_port = backup_e2e::free_port();
  std::string peer = "http://127.0.0.1:" + std::to_string(peer_port);
  std::string client = "http://127.0.0.1:" + std::to_string(client_port);
  std::vector<std::string> args = {"snapshot", "restore", snapshot, "--data-dir", data, "--name", "restored",
                                   "--initial-cluster", "restored=" + peer, "--initial-advertise-peer-urls", peer};
  args.insert(args.begin(), bin + (f.info().value("version", "") == "3.4" ? "/etcdctl" : "/etcdutl"));
  auto restored = e2e::run(args, {{"ETCDCTL_API", "3"}});
  REQUIRE_MESSAGE(restored.rc == 0, "restore: " << restored.err << restored.out);
  backup_e2e::Child etcd({bin + "/etcd", "--name", "restored", "--data-dir", data, "--listen-client-urls", client,
                          "--advertise-client-urls", client, "--listen-peer-urls", peer,
                          "--initial-advertise-peer-urls", peer, "--initial-cluster", "restored=" + peer},
                         work + "/restored.log");
  e2e::CommandResult got;
  for (int i = 0; i < 100; ++i) {
    got = e2e::run({bin + "/etcdctl", "--endpoints", client, "get", "--from-key", "", "-w", "json"},
                   {{"ETCDCTL_API", "3"}});
    if (got.rc == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  json restored_keys = all_keys(got);
  json live_keys = all_keys(f.etcdctl({"get", "--from-key", "", "-w", "json"}));
  CHECK(restored_keys.size() >= 20);
  CHECK(restored_keys == live_keys);
}

void put_keys(const e2e::LegacyFixture& f) {
  for (int i = 0; i < 20; ++i) {
    auto r = f.etcdctl({"put", "/s3-e2e/" + std::to_string(i), "value-" + std::to_string(i * 7919)});
    REQUIRE_MESSAGE(r.rc == 0, r.err);
  }
}

// Legacy EtcdBackups (a pending and a completed one) and a schedule of the cluster.
void legacy_backups(const std::string& ns) {
  const std::string dest = R"("destination": {"s3": {"endpoint": "https://s3.example", "bucket": "b",
                              "credentialsSecretRef": {"name": "creds"}}})";
  for (const char* name : {"pending", "done"}) {
    e2e::kubectl({"-n", ns, "create", "-f", "-"},
                 R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackup", "metadata": {"name": ")" +
                     std::string(name) + R"("}, "spec": {"clusterRef": {"name": "etcd"}, )" + dest + "}}");
  }
  e2e::kubectl({"-n", ns, "patch", "etcdbackups.etcd.aenix.io", "done", "--subresource", "status", "--type", "merge",
                "-p",
                R"({"status": {"snapshot": {"uri": "s3://b/etcd-done.db", "checksum": "sha256:)" +
                    std::string(64, 'a') + R"(", "sizeBytes": 20480}}})"});
  e2e::kubectl({"-n", ns, "create", "-f", "-"},
               R"({"apiVersion": "etcd.aenix.io/v1alpha1", "kind": "EtcdBackupSchedule", "metadata": {"name": "hourly"},
                   "spec": {"clusterRef": {"name": "etcd"}, "schedule": "0 * * * *", )" + dest + "}}");
}

// docs/rules.md#legacy-backups applied: the pending backup became an EtcdSnapshot and its legacy
// object went; the completed one and the schedule stay (the CronJob printed).
void check_legacy_backups(const std::string& ns, const std::string& out) {
  CHECK(out.find("EtcdBackup " + ns + "/pending: created") != std::string::npos);
  CHECK(out.find("EtcdBackup " + ns + "/done: kept") != std::string::npos);
  CHECK(out.find("EtcdBackupSchedule " + ns + "/hourly: printed") != std::string::npos);
  json snaps = json::parse(e2e::kubectl({"-n", ns, "get", "etcdsnapshots.etcd-operator.cozystack.io", "-o", "json"}));
  REQUIRE(snaps["items"].size() == 1);
  CHECK(snaps["items"][0]["spec"]["clusterRef"]["name"] == "etcd");
  json legacy = json::parse(e2e::kubectl({"-n", ns, "get", "etcdbackups.etcd.aenix.io", "-o", "json"}));
  std::vector<std::string> left;
  for (const auto& b : legacy["items"]) {
    if (!b["metadata"].contains("deletionTimestamp")) left.push_back(b["metadata"]["name"]);
  }
  CHECK(left == std::vector<std::string>{"done"});
  CHECK(e2e::kubectl_result({"-n", ns, "get", "etcdbackupschedules.etcd.aenix.io", "hourly"}).rc == 0);
}

void credentials_secret(const std::string& ns, const std::string& name, const std::string& secret_key) {
  e2e::kubectl({"-n", ns, "create", "secret", "generic", name,
                "--from-literal=AWS_ACCESS_KEY_ID=" + e2e::var("TESTENV_S3_ACCESS_KEY"),
                "--from-literal=AWS_SECRET_ACCESS_KEY=" + secret_key});
}

std::vector<std::string> s3_flags(const std::string& endpoint, const std::string& bucket) {
  return {"--backup-s3-endpoint", endpoint, "--backup-s3-bucket", bucket, "--backup-s3-force-path-style"};
}

// A fresh directory to download and restore a snapshot in.
std::string download_dir() {
  std::string work = e2e::var("TESTENV_DIR") + "/" + e2e::unique_name("s3-restore");
  std::filesystem::create_directories(work);
  return work;
}

// Downloads the object `key` to work/downloaded.db; returns that path.
std::string download(backup::S3Client& s3, const std::string& key, const std::string& work) {
  std::string local = work + "/downloaded.db";
  std::ofstream out(local, std::ios::binary);
  backup_e2e::must(s3.get(key, [&out](std::string_view d) { return static_cast<bool>(out.write(d.data(), d.size())); }),
                   "get");
  return local;
}

// Adopts with an S3 backup, then proves the object: its metadata, its bytes
// (the sha256 in the metadata), and its content restored.
void adopt_to_s3(const std::string& version, const std::vector<std::string>& variant, const std::string& key_prefix,
                 bool from_environment, bool also_dir, bool with_legacy_backups = false) {
  e2e::Namespace ns("e2e-s3-" + version.substr(0, 1) + version.substr(2));
  std::vector<std::string> args = {"--version", version};
  args.insert(args.end(), variant.begin(), variant.end());
  e2e::LegacyFixture f(ns.name(), "etcd", args);
  backup_e2e::Bucket bucket("e2e-adopt");
  put_keys(f);
  if (with_legacy_backups) legacy_backups(ns.name());
  std::string uid = e2e::kubectl({"-n", ns.name(), "get", "etcdclusters.etcd.aenix.io", "etcd", "-o",
                                  "jsonpath={.metadata.uid}"});

  std::vector<std::string> extra = s3_flags(e2e::var("TESTENV_S3_ENDPOINT"), bucket.name());
  std::map<std::string, std::string> env;
  if (from_environment) {
    env = {{"AWS_ACCESS_KEY_ID", e2e::var("TESTENV_S3_ACCESS_KEY")},
           {"AWS_SECRET_ACCESS_KEY", e2e::var("TESTENV_S3_SECRET_KEY")}};
  } else {
    credentials_secret(ns.name(), "s3-credentials", e2e::var("TESTENV_S3_SECRET_KEY"));
    extra.insert(extra.end(), {"--backup-s3-credentials-secret", "s3-credentials"});
  }
  if (!key_prefix.empty()) extra.insert(extra.end(), {"--backup-s3-key", key_prefix});
  std::string dir = also_dir ? e2e::backup_dir(f) : "";
  if (also_dir) extra.insert(extra.end(), {"--backup-dir", dir});
  auto r = e2e::apply(f, extra, env);
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("1 adopted") != std::string::npos);
  if (with_legacy_backups) check_legacy_backups(ns.name(), r.out);
  // The secret key never shows.
  CHECK(r.out.find(e2e::var("TESTENV_S3_SECRET_KEY")) == std::string::npos);
  CHECK(r.err.find(e2e::var("TESTENV_S3_SECRET_KEY")) == std::string::npos);

  const std::string file = ns.name() + "-etcd-migration.db";
  const std::string key = key_prefix.empty() ? file : key_prefix + "/" + file;
  CHECK(r.out.find("s3://" + bucket.name() + "/" + key) != std::string::npos);
  auto s3 = backup_e2e::must(backup::S3Client::create(bucket.location(), backup_e2e::s3_credentials()), "s3 client");
  auto head = backup_e2e::must(s3->head(key), "head");
  REQUIRE(head.has_value());
  CHECK(head->metadata["etcd-snapshot-uid"] == uid);
  CHECK(std::stoll(head->metadata["etcd-snapshot-revision"]) > 0);

  const std::string work = download_dir();
  const std::string local = download(*s3, key, work);
  CHECK(std::filesystem::file_size(local) == head->size);
  auto sum = e2e::run({"sha256sum", local});
  CHECK(sum.out.substr(0, 64) == head->metadata["etcd-snapshot-sha256"]);
  if (also_dir) {
    // Both destinations hold the very same bytes (one stream, fanned out).
    auto dsum = e2e::run({"sha256sum", dir + "/" + file});
    CHECK(dsum.out.substr(0, 64) == sum.out.substr(0, 64));
  }
  restore_and_compare(f, local, work);
  std::filesystem::remove_all(work);
}

// A failed backup check: refused (exit 3), one line naming the cause (blocker
// B22 of the plan), and nothing changed; the plan without --apply is blocked
// with the same line (docs/rules.md#dry-run-checks-what-the-run-checks).
void check_refused(const e2e::LegacyFixture& f, const std::string& before, const std::vector<std::string>& extra,
                   const std::string& cause, const std::map<std::string, std::string>& env = {}) {
  auto b22 = [](const std::string& out) {
    size_t at = out.find("ERROR B22: ");
    return at == std::string::npos ? std::string() : out.substr(at, out.find('\n', at) - at);
  };
  auto start = std::chrono::steady_clock::now();
  auto r = e2e::apply(f, extra, env);
  auto took = std::chrono::steady_clock::now() - start;
  std::vector<std::string> argv = {e2e::etcd_migrate_path(), "adopt", "-n", f.ns(), "--connect", "direct",
                                   "--legacy-controller", f.legacy_controller(), "--new-controller", f.new_controller()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::map<std::string, std::string> e = {{"KUBECONFIG", e2e::var("KUBECONFIG")}, {"NO_COLOR", "1"}};
  e.insert(env.begin(), env.end());
  auto plan = e2e::run(argv, e);
  INFO("stdout: " << r.out << "\nstderr: " << r.err << "\nplan: " << plan.out << plan.err);
  CHECK(r.rc == 3);
  CHECK(plan.rc == 3);
  CHECK(took < std::chrono::seconds(30));
  const std::string line = b22(r.out);
  CAPTURE(line);
  CHECK(line.find(cause) != std::string::npos);
  CHECK(b22(plan.out) == line);
  for (const auto* text : {&r.out, &r.err, &plan.out, &plan.err}) {
    CHECK(text->find(e2e::var("TESTENV_S3_SECRET_KEY")) == std::string::npos);
  }
  CHECK(e2e::graph(f) == before);
}

}  // namespace

TEST_CASE("etcd 3.4 plain: credentials from AWS_*, S3 and --backup-dir at once, restored with etcdctl") {
  adopt_to_s3("3.4", {}, "", true, true);
}
TEST_CASE("etcd 3.5 with TLS: credentials Secret, key prefix, restored with etcdutl; legacy EtcdBackups converted") {
  adopt_to_s3("3.5", {"--tls"}, "etcd/backups", false, false, true);
}

TEST_CASE("etcd 3.6 with TLS and auth: bad credential, missing Secret, missing bucket, wrong endpoint change nothing; "
          "then the backup goes to S3 and is restored with etcdutl") {
  e2e::Namespace ns("e2e-s3-36");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--auth"});
  backup_e2e::Bucket bucket("e2e-adopt");
  put_keys(f);
  const std::string endpoint = e2e::var("TESTENV_S3_ENDPOINT");
  credentials_secret(ns.name(), "s3-bad", "not-the-secret-key");
  credentials_secret(ns.name(), "s3-good", e2e::var("TESTENV_S3_SECRET_KEY"));
  const std::string before = e2e::graph(f);

  auto with = [](std::vector<std::string> flags, const std::string& secret) {
    flags.insert(flags.end(), {"--backup-s3-credentials-secret", secret});
    return flags;
  };
  check_refused(f, before, with(s3_flags(endpoint, bucket.name()), "s3-bad"), "SignatureDoesNotMatch");
  check_refused(f, before, with(s3_flags(endpoint, bucket.name()), "s3-missing"),
                "secret \"" + ns.name() + "/s3-missing\": does not exist");
  check_refused(f, before, with(s3_flags(endpoint, "no-such-bucket-" + bucket.name()), "s3-good"), "NoSuchBucket");
  std::string nowhere = "http://127.0.0.1:" + std::to_string(backup_e2e::free_port());
  check_refused(f, before, with(s3_flags(nowhere, bucket.name()), "s3-good"), "127.0.0.1");
  // Without a Secret and without the AWS_* environment.
  check_refused(f, before, s3_flags(endpoint, bucket.name()), "AWS_ACCESS_KEY_ID is not set",
                {{"AWS_ACCESS_KEY_ID", ""}, {"AWS_SECRET_ACCESS_KEY", ""}});

  // Ownership untouched, the legacy EtcdCluster intact, auth still on.
  json pods = json::parse(e2e::kubectl({"-n", ns.name(), "get", "pods", "-o", "json"}));
  for (const auto& p : pods["items"]) {
    CAPTURE(p["metadata"]["name"]);
    CHECK(p["metadata"]["ownerReferences"][0]["kind"] == "StatefulSet");
  }
  CHECK(e2e::kubectl({"-n", ns.name(), "get", "etcdclusters.etcd.aenix.io", "etcd", "-o",
                      "jsonpath={.metadata.deletionTimestamp}"}) == "");
  auto auth = f.etcdctl({"auth", "status"});
  CHECK(auth.out.find("Authentication Status: true") != std::string::npos);

  // Then the good Secret: adopted, the object restored.
  auto r = e2e::apply(f, with(s3_flags(endpoint, bucket.name()), "s3-good"));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  REQUIRE(r.rc == 0);
  const std::string key = ns.name() + "-etcd-migration.db";
  auto s3 = backup_e2e::must(backup::S3Client::create(bucket.location(), backup_e2e::s3_credentials()), "s3 client");
  const std::string work = download_dir();
  const std::string local = download(*s3, key, work);
  restore_and_compare(f, local, work);
  std::filesystem::remove_all(work);
}
