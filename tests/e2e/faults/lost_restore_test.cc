// A lost answer (docs/server-faults.md#lost-answers) in `kubectl-etcd
// restore` from a snapshot file through S3: one uninterrupted run through
// fault_proxy.py counts its writes W (the checks only read; the server-side
// dry-run is not counted); then for each N (one per kind: lost_matrix.h) a
// namespace and a bucket of the case's own, the answer to write N lost, and
// the same command again. Then the real operator on each namespace. Each
// time the end state is the uninterrupted run's: one EtcdCluster with this
// restore source, the object in the bucket the file's bytes, and the
// operator's seed EtcdMember and Pod made once, reading that object. The
// seed's init containers do not run in this world (the pod runner runs etcd
// containers only), so the restored cluster never answers and `check` has
// nothing to look at; what the operator builds is compared instead.
#include <filesystem>
#include <future>
#include <thread>

#include "lost_operator.h"

using namespace faults_e2e;

namespace {

const char* kCluster = "etcd-restored";

// A namespace with the S3 Secret, and a bucket of its own.
struct Target {
  e2e::Namespace ns{"e2e-lostrestore"};
  std::string bucket = e2e::unique_name("lostrestore");
  std::string bucket_dir = e2e::var("TESTENV_S3_DIR") + "/" + bucket;
  Target() {
    std::filesystem::create_directory(bucket_dir);
    e2e::kubectl({"-n", ns.name(), "create", "secret", "generic", "s3-creds",
                  "--from-literal=AWS_ACCESS_KEY_ID=" + e2e::var("TESTENV_S3_ACCESS_KEY"),
                  "--from-literal=AWS_SECRET_ACCESS_KEY=" + e2e::var("TESTENV_S3_SECRET_KEY")});
  }
  ~Target() {
    e2e::kubectl_result({"-n", ns.name(), "delete", "etcdclusters.etcd-operator.cozystack.io", "--all", "--wait=false"});
    std::error_code ec;
    std::filesystem::remove_all(bucket_dir, ec);
  }
  Target(const Target&) = delete;
  Target& operator=(const Target&) = delete;
  std::string object() const { return bucket_dir + "/" + kCluster + "-restore.db"; }
};

e2e::CommandResult restore(const Target& t, const std::string& file, const std::string& kubeconfig) {
  return e2e::run({e2e::kubectl_etcd_path(), "restore", kCluster, "-n", t.ns.name(), "--version", "3.6.11",
                   "--replicas", "1", "--storage-size", "1Gi", "--file", file, "--s3-endpoint",
                   e2e::var("TESTENV_S3_ENDPOINT"), "--s3-bucket", t.bucket, "--s3-secret", "s3-creds",
                   "--s3-force-path-style", "-o", "json"},
                  {{"KUBECONFIG", kubeconfig}});
}

// step -> outcome of a run's document.
std::map<std::string, std::string> outcomes(const e2e::CommandResult& r) {
  std::map<std::string, std::string> out;
  const json doc = json::parse(r.out, nullptr, false);
  if (!doc.is_object()) return out;
  for (const auto& s : doc.value("steps", json::array())) out[s["step"]] = s["outcome"];
  return out;
}

// The real operator on the namespace until the seed's Pod exists; the graph
// then (the seed's generated name replaced).
json operated_graph(const Target& t) {
  e2e::Operator op(t.ns.name() + "/etcd-operator", t.ns.name(), 1, "testenv.invalid/etcd-operator-e2e:v0.5.0");
  op.wait_leading();
  std::string seed;
  e2e::wait_until(
      [&] {
        const json members = e2e::get_json({"-n", t.ns.name(), "etcdmembers.etcd-operator.cozystack.io"});
        if (members["items"].size() != 1) return false;
        seed = members["items"][0]["metadata"]["name"];
        return e2e::kubectl_result({"-n", t.ns.name(), "get", "pod", seed}).rc == 0;
      },
      std::chrono::seconds(120), "the operator to create the seed member of " + t.ns.name() + " and its Pod");
  // What the operator makes around the seed (Services, the PDB) comes in
  // the same reconcile or the next; a few seconds for it to land.
  std::this_thread::sleep_for(std::chrono::seconds(5));
  json g = object_graph(t.ns.name(), operator_kinds(), {{seed, "<seed>"}, {t.ns.name(), "<ns>"}, {t.bucket, "<bucket>"}});
  // Besides its MemberList of the seed, which never answers here (above),
  // nothing made the operator complain.
  std::vector<std::string> errors;
  for (const auto& e : e2e::operator_errors(op, t.ns.name())) {
    if (e.find("MemberList failed") == std::string::npos) errors.push_back(e);
  }
  CHECK_MESSAGE(errors.empty(), t.ns.name() << ": " << json(errors).dump(2));
  return g;
}

}  // namespace

TEST_CASE("restore: the answer to each write lost, then the same command again") {
  const auto t0 = Clock::now();
  // The source: a real etcd with a few keys, saved as `snapshot save` saves.
  e2e::EtcdClusterOptions src_options;
  src_options.members = 1;
  e2e::EtcdCluster src(src_options);
  for (const char* k : {"/app/a", "/app/b", "/other"}) src.ctl({"put", k, k});
  const std::string work = tmpdir("e2e-lost-restore");
  const std::string file = work + "/source.db";
  auto saved = e2e::run({e2e::kubectl_etcd_path(), "snapshot", "save", file, "--endpoints", src.ip_client_urls().front()});
  REQUIRE_MESSAGE(saved.rc == 0, saved.err);
  const std::string bytes = slurp(file);

  std::vector<std::string> kinds;  // of each write, by number
  Target uninterrupted;
  {
    FaultProxy proxy(work + "/0", FaultProxy::lose(0));
    auto r = restore(uninterrupted, file, proxy.kubeconfig());
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    CHECK(outcomes(r).at("create") == "did");
    kinds = write_kinds(proxy);
  }
  const std::vector<int> cases = lost_cases(kinds);
  MESSAGE("W = " << kinds.size() << " mutating requests, " << cases.size() << " cases (one per kind, or LOST_ALL/LOST_N)");
  REQUIRE(!kinds.empty());
  CHECK(slurp(uninterrupted.object()) == bytes);

  // The cases' runs, then the operator on every namespace at once.
  std::vector<std::unique_ptr<Target>> targets;
  for (int n : cases) {
    targets.push_back(std::make_unique<Target>());
    const Target& t = *targets.back();
    FaultProxy proxy(work + "/" + std::to_string(n), FaultProxy::lose(n));
    auto first = restore(t, file, proxy.kubeconfig());
    const std::string lost = lost_line(proxy);
    MESSAGE("N = " << n << ": " << lost << "; first run rc " << first.rc << ": " << first.err);
    CHECK_MESSAGE(!lost.empty(), "N = " << n);
    auto again = restore(t, file, e2e::var("KUBECONFIG"));
    MESSAGE("N = " << n << ": re-run rc " << again.rc);
    CHECK_MESSAGE(again.rc == 0, "N = " << n << ": re-run: " << again.out << again.err);
    // Nothing twice: the re-run finds the upload and the EtcdCluster (the
    // first run made both, its answer lost or not).
    const auto o = outcomes(again);
    CHECK_MESSAGE(o.count("upload") == 1, "N = " << n << ": " << again.out);
    if (o.count("upload") != 0) CHECK_MESSAGE(o.at("upload") == "done", "N = " << n);
    if (o.count("create") != 0) CHECK_MESSAGE(o.at("create") == "done", "N = " << n);
    CHECK(slurp(t.object()) == bytes);
  }
  std::vector<std::future<json>> graphs;
  graphs.push_back(std::async(std::launch::async, [&] { return operated_graph(uninterrupted); }));
  for (const auto& t : targets) graphs.push_back(std::async(std::launch::async, [&t] { return operated_graph(*t); }));
  for (auto& g : graphs) g.wait();
  const json expected = graphs[0].get();
  MESSAGE("end state: " << expected.size() << " objects: " << [&] {
    std::string names;
    for (auto it = expected.begin(); it != expected.end(); ++it) names += " " + it.key();
    return names;
  }());
  CHECK(expected.contains("etcdclusters.etcd-operator.cozystack.io/etcd-restored"));
  CHECK(expected.contains("etcdmembers.etcd-operator.cozystack.io/<seed>"));
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const json got = graphs[i + 1].get();
    CHECK_MESSAGE(got == expected, "N = " << cases[i] << ": " << json::diff(expected, got).dump());
  }
  MESSAGE("seconds: " << seconds_since(t0));
  e2e::run({"rm", "-rf", work});
}
