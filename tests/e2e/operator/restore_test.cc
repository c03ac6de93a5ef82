// kubectl-etcd restore (docs/restore.md) against the real CRDs and the real
// operator: a snapshot saved from a real etcd, uploaded to a real S3 server
// (versitygw), the EtcdCluster accepted by a server-side dry-run and created;
// a re-run finds both and changes nothing; a corrupt file, a taken name and a
// missing PVC are refused before anything is written. Then the operator
// reconciles the new clusters: the seed EtcdMember carries spec.restore and
// its Pod the restore init containers, reading the very object (S3) or file
// (PVC) the command named.
//
// What this environment cannot do: the pod runner stands in for the kubelet
// of etcd containers only, so the seed's init containers (install-tools
// from the operator image, then the restore agent in the etcd image) never
// run here and the operator's restored cluster never starts. The test proves
// everything up to the Pod the operator builds, and that the uploaded
// object holds the source's keys (restored with etcdutl, as the agent would,
// and served by an etcd of the test's own), not that the operator's seed came
// up with them.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "operator_e2e.h"
#include "testenv.h"

using json = nlohmann::json;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

json env_of(const json& container) {
  json out = json::object();
  for (const auto& e : container.value("env", json::array())) {
    // An empty value is left out of the object altogether.
    out[e["name"].get<std::string>()] = e.contains("valueFrom") ? e["valueFrom"] : e.value("value", json(""));
  }
  return out;
}

const json* find_named(const json& list, const std::string& name) {
  for (const auto& x : list) {
    if (x.value("name", "") == name) return &x;
  }
  return nullptr;
}

// The seed EtcdMember of `cluster` once the operator made it, and its Pod.
std::pair<json, json> seed_of(const std::string& ns, const std::string& cluster) {
  json member, pod;
  e2e::wait_until(
      [&] {
        auto members = e2e::get_json({"-n", ns, "etcdmembers.etcd-operator.cozystack.io", "-l",
                                      "etcd-operator.cozystack.io/cluster=" + cluster});
        for (const auto& m : members["items"]) {
          if (!m.contains("spec") || !m["spec"].contains("restore")) continue;
          auto pods = e2e::get_json({"-n", ns, "pods"});
          for (const auto& p : pods["items"]) {
            if (p["metadata"]["name"] == m["metadata"]["name"]) {
              member = m;
              pod = p;
              return true;
            }
          }
        }
        return false;
      },
      std::chrono::seconds(120), "the operator to create the seed member of " + ns + "/" + cluster);
  return {member, pod};
}

}  // namespace

TEST_CASE("restore: a saved snapshot through S3 or a PVC into a new EtcdCluster the operator seeds from it") {
  e2e::Namespace ns_holder("e2e-restore");
  const std::string ns = ns_holder.name();
  const std::string tool = e2e::kubectl_etcd_path();

  // The source: a real etcd with a few keys, saved as `snapshot save` saves.
  e2e::EtcdClusterOptions src_options;
  src_options.members = 1;
  e2e::EtcdCluster src(src_options);
  std::map<std::string, std::string> keys{{"/app/a", "1"}, {"/app/b", "two"}, {"/other", "x"}};
  for (const auto& [k, v] : keys) src.ctl({"put", k, v});
  const std::string file = e2e::var("TESTENV_DIR") + "/" + ns + "-source.db";
  auto saved = e2e::run({tool, "snapshot", "save", file, "--endpoints", src.ip_client_urls().front()});
  REQUIRE_MESSAGE(saved.rc == 0, saved.err);

  // A bucket of the test's own and the Secret both the command and the
  // operator's restore read.
  const std::string bucket = e2e::unique_name("restore");
  const std::string bucket_dir = e2e::var("TESTENV_S3_DIR") + "/" + bucket;
  std::filesystem::create_directory(bucket_dir);
  e2e::kubectl({"-n", ns, "create", "secret", "generic", "s3-creds",
                "--from-literal=AWS_ACCESS_KEY_ID=" + e2e::var("TESTENV_S3_ACCESS_KEY"),
                "--from-literal=AWS_SECRET_ACCESS_KEY=" + e2e::var("TESTENV_S3_SECRET_KEY")});

  const std::vector<std::string> s3_args{"--s3-endpoint", e2e::var("TESTENV_S3_ENDPOINT"), "--s3-bucket", bucket,
                                         "--s3-secret", "s3-creds", "--s3-force-path-style"};
  auto restore = [&](const std::string& name, std::vector<std::string> args) {
    std::vector<std::string> argv{tool, "restore", name, "-n", ns, "--version", "3.6.11", "--replicas", "1",
                                  "--storage-size", "1Gi", "-o", "json"};
    argv.insert(argv.end(), args.begin(), args.end());
    return e2e::run(argv);
  };
  auto with_s3 = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = s3_args;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  auto cluster_exists = [&](const std::string& name) {
    return e2e::kubectl_result({"-n", ns, "get", "etcdclusters.etcd-operator.cozystack.io", name}).rc == 0;
  };
  const std::string object_path = bucket_dir + "/etcd-restored-restore.db";

  // --dry-run: the plan and the object; nothing is written.
  auto plan = restore("etcd-restored", with_s3({"--file", file, "--dry-run"}));
  INFO("dry-run: " << plan.out << plan.err);
  REQUIRE(plan.rc == 0);
  auto doc = json::parse(plan.out);
  CHECK(doc["source"] == "s3://" + bucket + "/etcd-restored-restore.db");
  const json source = doc["object"]["spec"]["bootstrap"]["restore"]["source"];
  CHECK(source["s3"]["key"] == "etcd-restored-restore.db");
  CHECK(source["s3"]["credentialsSecretRef"]["name"] == "s3-creds");
  CHECK_FALSE(cluster_exists("etcd-restored"));
  CHECK_FALSE(std::filesystem::exists(object_path));

  // A file that is not a complete snapshot: refused before any upload.
  const std::string cut = file + ".cut";
  {
    std::string bytes = read_file(file);
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() - 512);
  }
  auto bad = restore("etcd-restored", with_s3({"--file", cut}));
  CHECK(bad.rc == 1);
  CHECK(bad.err.find("not a complete snapshot") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(object_path));
  CHECK_FALSE(cluster_exists("etcd-restored"));

  // The restore: upload, server-side dry-run, create.
  auto run1 = restore("etcd-restored", with_s3({"--file", file}));
  INFO("restore: " << run1.out << run1.err);
  REQUIRE(run1.rc == 0);
  auto rep = json::parse(run1.out);
  std::map<std::string, std::string> outcomes;
  for (const auto& s : rep["steps"]) outcomes[s["step"]] = s["outcome"];
  CHECK(outcomes == std::map<std::string, std::string>{{"verify-file", "done"},
                                                       {"read-credentials", "done"},
                                                       {"upload", "did"},
                                                       {"server-dry-run", "did"},
                                                       {"create", "did"}});
  CHECK(read_file(object_path) == read_file(file));
  auto created = e2e::get_json({"-n", ns, "etcdclusters.etcd-operator.cozystack.io", "etcd-restored"});
  CHECK(created["spec"]["bootstrap"]["restore"]["source"] == source);
  CHECK(created["metadata"]["uid"] == rep["uid"]);

  // A re-run finds the upload and the cluster: nothing changes.
  auto run2 = restore("etcd-restored", with_s3({"--file", file}));
  INFO("re-run: " << run2.out << run2.err);
  REQUIRE(run2.rc == 0);
  auto rep2 = json::parse(run2.out);
  for (const auto& s : rep2["steps"]) CHECK(s["outcome"] == "done");
  CHECK(rep2["uid"] == rep["uid"]);

  // From the object alone (no --file): its exact key.
  auto from_object = restore("etcd-from-object", with_s3({"--s3-key", "etcd-restored-restore.db"}));
  INFO("from object: " << from_object.out << from_object.err);
  CHECK(from_object.rc == 0);
  auto missing_object = restore("etcd-nothing", with_s3({"--s3-key", "no-such.db"}));
  CHECK(missing_object.rc == 6);
  CHECK_FALSE(cluster_exists("etcd-nothing"));

  // A PVC source: an existing claim that holds the file (restore does not
  // copy into PVCs). A missing claim is not found; a taken name is refused.
  auto no_pvc = restore("etcd-from-pvc", {"--pvc", "snapshots", "--pvc-path", "etcd/source.db"});
  CHECK(no_pvc.rc == 6);
  CHECK(no_pvc.err.find("snapshots") != std::string::npos);
  json pvc = {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata", {{"name", "snapshots"}, {"namespace", ns}}},
              {"spec", {{"accessModes", {"ReadWriteOnce"}}, {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}};
  e2e::kubectl({"apply", "-f", "-"}, pvc.dump());
  auto taken = restore("etcd-restored", {"--pvc", "snapshots", "--pvc-path", "etcd/source.db"});
  CHECK(taken.rc == 3);
  CHECK(taken.err.find("already exists") != std::string::npos);
  auto from_pvc = restore("etcd-from-pvc", {"--pvc", "snapshots", "--pvc-path", "etcd/source.db"});
  INFO("from pvc: " << from_pvc.out << from_pvc.err);
  REQUIRE(from_pvc.rc == 0);

  // The real operator on these clusters: the seed carries the restore and
  // its Pod the init containers that read the source.
  e2e::Operator op(ns + "/etcd-operator", ns, 1, "testenv.invalid/etcd-operator-e2e:v0.5.0");
  op.wait_leading();
  {
    auto [member, pod] = seed_of(ns, "etcd-restored");
    CHECK(member["spec"]["restore"]["source"] == source);
    const auto& inits = pod["spec"]["initContainers"];
    REQUIRE(inits.size() == 2);
    CHECK(inits[0]["name"] == "install-tools");
    CHECK(inits[1]["name"] == "restore");
    auto env = env_of(inits[1]);
    CHECK(env["SNAPSHOT_DEST_KIND"] == "s3");
    CHECK(env["S3_BUCKET"] == bucket);
    CHECK(env["S3_KEY"] == "etcd-restored-restore.db");
    CHECK(env["S3_ENDPOINT"] == e2e::var("TESTENV_S3_ENDPOINT"));
    CHECK(env["S3_FORCE_PATH_STYLE"] == "true");
    CHECK(env["AWS_ACCESS_KEY_ID"]["secretKeyRef"]["name"] == "s3-creds");
    CHECK(env["AWS_SECRET_ACCESS_KEY"]["secretKeyRef"]["name"] == "s3-creds");
  }
  {
    auto [member, pod] = seed_of(ns, "etcd-from-pvc");
    CHECK(member["spec"]["restore"]["source"]["pvc"]["claimName"] == "snapshots");
    auto env = env_of(pod["spec"]["initContainers"][1]);
    CHECK(env["SNAPSHOT_DEST_KIND"] == "pvc");
    CHECK(env["PVC_SUBPATH"] == "etcd/source.db");
    const json* vol = find_named(pod["spec"]["volumes"], "restore-src");
    REQUIRE(vol != nullptr);
    CHECK((*vol)["persistentVolumeClaim"]["claimName"] == "snapshots");
  }
  CHECK(e2e::operator_errors(op, ns).empty());

  // The uploaded object restores to the source's keys (etcdutl, as the
  // restore agent runs it; the operator's seed cannot run here, see above).
  const std::string data = e2e::var("TESTENV_DIR") + "/" + ns + "-restored";
  auto r = e2e::run({src.etcdutl_path(), "snapshot", "restore", object_path, "--data-dir", data});
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  // One etcd on the restored data dir, on a loopback IP of its own, for
  // at most a minute; its keys are the source's.
  const std::string ip = "127.77." + std::to_string(std::rand() % 250 + 1) + "." + std::to_string(std::rand() % 250 + 1);
  const std::string etcd_bin = (std::filesystem::path(src.etcdctl_path()).parent_path() / "etcd").string();
  const std::string client = "http://" + ip + ":2379";
  const std::string peer = "http://" + ip + ":2380";
  auto started = e2e::run({"sh", "-c",
                           "timeout 60 \"$0\" --data-dir \"$1\" --listen-client-urls \"$2\" --advertise-client-urls "
                           "\"$2\" --listen-peer-urls \"$3\" >\"$1.log\" 2>&1 & echo $!",
                           etcd_bin, data, client, peer});
  REQUIRE(started.rc == 0);
  std::map<std::string, std::string> restored;
  e2e::wait_until(
      [&] {
        auto got = e2e::run({src.etcdctl_path(), "--endpoints", client, "get", "", "--prefix", "-w", "json"});
        if (got.rc != 0) return false;
        restored.clear();
        for (const auto& kv : json::parse(got.out).value("kvs", json::array())) {
          auto decode = [](const std::string& b64) {
            auto d = e2e::run({"sh", "-c", "printf %s \"$0\" | base64 -d", b64});
            return d.out;
          };
          restored[decode(kv["key"])] = decode(kv["value"]);
        }
        return true;
      },
      std::chrono::seconds(30), "etcd on the restored data dir to answer");
  e2e::run({"kill", started.out.substr(0, started.out.find('\n'))});
  CHECK(restored == keys);

  e2e::kubectl({"-n", ns, "delete", "etcdclusters.etcd-operator.cozystack.io", "--all", "--wait=false"});
  std::filesystem::remove_all(bucket_dir);
  std::filesystem::remove_all(data);
  std::filesystem::remove(file);
  std::filesystem::remove(cut);
}
