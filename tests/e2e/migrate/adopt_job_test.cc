// etcd-migrate adopt --apply --backup-mode job (docs/rules.md#backup-job)
// against the real apiserver and its Job controller. There is no kubelet:
// the Job controller creates the Job's pod and nothing runs it, so this test
// plays the kubelet's part, and only that: it patches the pod's status the
// way a kubelet reports it (a container waiting in CreateContainerConfigError,
// or the pod Succeeded), and the Job controller draws its conclusions.
#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <thread>

#include "adopt_checks.h"
#include "backup/backup_job.h"

using json = nlohmann::json;

namespace {

const std::string kImage = "registry.local/etcd-operator:e2e";

// The name of the first pod of the Job, once the Job controller made it.
std::string wait_for_pod(const std::string& ns, const std::string& job) {
  for (int i = 0; i < 300; ++i) {
    auto r = e2e::kubectl_result({"-n", ns, "get", "pods", "-l", "batch.kubernetes.io/job-name=" + job, "-o",
                                  "jsonpath={.items[0].metadata.name}"});
    if (r.rc == 0 && !r.out.empty()) return r.out;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  FAIL("no pod of Job " << ns << "/" << job << " appeared");
  return {};
}

// What a kubelet reports: the one container waiting, or terminated with 0.
void kubelet_reports(const std::string& ns, const std::string& pod, const json& status) {
  e2e::kubectl({"-n", ns, "patch", "pod", pod, "--subresource", "status", "--type", "merge", "-p",
                json({{"status", status}}).dump()});
}

json container_status(const json& state) {
  return json::array({{{"name", "snapshot-agent"},
                       {"image", kImage},
                       {"imageID", ""},
                       {"ready", false},
                       {"restartCount", 0},
                       {"state", state}}});
}

}  // namespace

TEST_CASE("job mode: pre-flight checks, early failure on CreateContainerConfigError (auth restored, Job removed), "
          "and a running Job of another invocation waited for, never deleted, its result read from its log") {
  e2e::Namespace ns("e2e-job");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--auth"});
  const std::string job = "etcd-migration-snapshot";
  const std::string before = e2e::graph(f);
  const std::vector<std::string> s3 = {"--backup-mode", "job", "--agent-image", kImage, "--backup-timeout", "5m",
                                       "--backup-s3-endpoint", "http://s3.invalid", "--backup-s3-bucket", "b",
                                       "--backup-s3-credentials-secret", "s3-credentials"};

  // The credentials Secret and the PVC are checked before anything changes.
  auto missing = e2e::apply(f, s3);
  INFO("stdout: " << missing.out << "\nstderr: " << missing.err);
  CHECK(missing.rc == 3);  // refused before anything changed
  CHECK(missing.out.find("secret \"" + ns.name() + "/s3-credentials\": does not exist") != std::string::npos);
  auto no_pvc = e2e::apply(f, {"--backup-mode", "job", "--agent-image", kImage, "--backup-pvc-claim", "backups"});
  CHECK(no_pvc.rc == 3);
  CHECK(no_pvc.out.find("persistentvolumeclaim \"" + ns.name() + "/backups\": does not exist") != std::string::npos);
  CHECK(e2e::kubectl_result({"-n", ns.name(), "get", "job", job}).rc != 0);
  CHECK(e2e::graph(f) == before);

  // A Secret without the secret key's entry is refused as well.
  e2e::kubectl({"-n", ns.name(), "create", "secret", "generic", "s3-credentials", "--from-literal=AWS_ACCESS_KEY_ID=k"});
  auto no_key = e2e::apply(f, s3);
  CHECK(no_key.rc == 3);
  CHECK(no_key.out.find("has no key AWS_SECRET_ACCESS_KEY") != std::string::npos);
  e2e::kubectl({"-n", ns.name(), "delete", "secret", "s3-credentials"});
  e2e::kubectl({"-n", ns.name(), "create", "secret", "generic", "s3-credentials", "--from-literal=AWS_ACCESS_KEY_ID=k",
                "--from-literal=AWS_SECRET_ACCESS_KEY=s"});

  // The Job is created; its pod cannot start: the run ends at once.
  auto stuck = std::async(std::launch::async, [&] { return e2e::apply(f, s3); });
  std::string pod = wait_for_pod(ns.name(), job);
  json created = json::parse(e2e::kubectl({"-n", ns.name(), "get", "job", job, "-o", "json"}));
  CHECK(created["spec"]["activeDeadlineSeconds"] == 300);  // --backup-timeout 5m
  CHECK(created["metadata"]["labels"]["app.kubernetes.io/created-by"] == "etcd-migrate");
  CHECK(created["spec"]["template"]["spec"]["containers"][0]["image"] == kImage);
  auto started = std::chrono::steady_clock::now();
  kubelet_reports(ns.name(), pod,
                  {{"containerStatuses",
                    container_status({{"waiting",
                                       {{"reason", "CreateContainerConfigError"},
                                        {"message", "secret \"s3-credentials\" has no key"}}}})}});
  auto r = stuck.get();
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.rc == 1);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(30));
  CHECK(r.out.find("CreateContainerConfigError") != std::string::npos);
  CHECK(r.out.find("re-enabled") != std::string::npos);  // docs/rules.md#auth-restored-on-early-failure
  CHECK(f.etcdctl({"auth", "status"}).out.find("Authentication Status: true") != std::string::npos);
  // It was this run's Job: removed with its pod, so that a re-run starts afresh.
  bool gone = false;
  for (int i = 0; i < 150 && !gone; ++i) {
    gone = e2e::kubectl_result({"-n", ns.name(), "get", "job", job}).rc != 0 &&
           e2e::kubectl({"-n", ns.name(), "get", "pods", "-l", "batch.kubernetes.io/job-name=" + job, "-o", "name"})
               .empty();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  CHECK(gone);
  CHECK(e2e::graph(f) == before);

  // Another invocation's Job, still running: waited for, never deleted.
  backup::BackupJobSpec spec;
  spec.ns = ns.name();
  spec.cluster = "etcd";
  spec.cluster_uid = e2e::kubectl({"-n", ns.name(), "get", "etcdclusters.etcd.aenix.io", "etcd", "-o",
                                   "jsonpath={.metadata.uid}"});
  spec.agent_image = kImage;
  spec.s3 = backup::BackupJobS3{"http://s3.invalid", "b", "", "", false, "s3-credentials"};
  json theirs = json::parse(e2e::kubectl({"-n", ns.name(), "create", "-o", "json", "-f", "-"},
                                         backup::backup_job(spec).dump()));
  std::string their_pod = wait_for_pod(ns.name(), job);
  const auto with_theirs = e2e::graph(f);  // their Job's Pod is theirs to keep
  auto waiting = std::async(std::launch::async, [&] { return e2e::apply(f, s3); });
  // The run has reached its backup step once its auth step turned auth off.
  for (int i = 0; i < 300; ++i) {
    if (f.etcdctl({"auth", "status"}).out.find("Authentication Status: false") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  CHECK(e2e::kubectl({"-n", ns.name(), "get", "job", job, "-o", "jsonpath={.metadata.uid}"}) ==
        theirs["metadata"]["uid"]);
  std::string now = "2026-01-01T00:00:00Z";
  kubelet_reports(ns.name(), their_pod,
                  {{"phase", "Succeeded"},
                   {"containerStatuses",
                    container_status({{"terminated",
                                       {{"exitCode", 0}, {"reason", "Completed"}, {"startedAt", now},
                                        {"finishedAt", now}}}})}});
  // Complete alone is not enough (docs/rules.md#backup-job): the agent's
  // result line is read from its Pod's log, and without a kubelet there is
  // no log. The run waited for the Job to complete, then stops there with
  // auth re-enabled; tests/e2e/node/backup_job_test.py reads the line of a
  // real agent.
  auto ok = waiting.get();
  INFO("stdout: " << ok.out << "\nstderr: " << ok.err);
  CHECK(ok.rc == 1);
  CHECK(ok.out.find("job \"" + ns.name() + "/" + job + "\": completed, but the log of its pod") != std::string::npos);
  CHECK(ok.out.find("re-enabled") != std::string::npos);
  CHECK(f.etcdctl({"auth", "status"}).out.find("Authentication Status: true") != std::string::npos);
  CHECK(e2e::graph(f) == with_theirs);
  CHECK(e2e::kubectl({"-n", ns.name(), "get", "job", job, "-o", "jsonpath={.metadata.uid}"}) ==
        theirs["metadata"]["uid"]);
}
