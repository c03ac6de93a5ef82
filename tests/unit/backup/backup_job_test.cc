// The backup Job of --backup-mode job, against golden files reviewed field by field
// against the reference's Job and docs/rules.md#backup-job. UPDATE_GOLDEN=1 rewrites them.
#include "backup/backup_job.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

const std::filesystem::path kGolden = std::filesystem::path(SOURCE_ROOT) / "tests/unit/backup/golden";

void check_golden(const std::string& name, const nlohmann::ordered_json& got) {
  auto path = kGolden / name;
  if (std::getenv("UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path) << got.dump(2) << "\n";
  }
  std::ifstream f(path);
  REQUIRE_MESSAGE(f.good(), "missing golden file " << path);
  std::stringstream ss;
  ss << f.rdbuf();
  auto want = nlohmann::json::parse(ss.str());
  // Compared after JSON parsing: key order and whitespace do not matter.
  CHECK_MESSAGE(nlohmann::json::parse(got.dump()) == want, name << ":\n" << got.dump(2));
}

backup::BackupJobSpec plain_spec() {
  backup::BackupJobSpec s;
  s.ns = "prod";
  s.cluster = "etcd";
  s.cluster_uid = "0b5c8a8e-1111-4222-8333-944455556666";
  s.agent_image = "ghcr.io/cozystack/etcd-operator:v0.4.0";
  return s;
}

}  // namespace

TEST_CASE("S3 with server and client TLS, a trusted-CA Secret, a custom client Service, --backup-timeout 45m") {
  auto s = plain_spec();
  s.client_service = "etcd-client-svc";
  s.timeout = std::chrono::minutes(45);
  s.server_secret = "etcd-server-tls";
  s.server_trusted_ca_secret = "etcd-ca-tls";
  s.client_secret = "etcd-client-tls";
  s.s3 = backup::BackupJobS3{"https://s3.example.com", "backups", "etcd/", "eu-west-1", true, "s3-creds"};
  check_golden("job_s3_tls.json", backup::backup_job(s));
}

TEST_CASE("PVC without TLS, the reference's default deadline, a cluster name too long for the reference") {
  auto s = plain_spec();
  s.cluster = std::string(40, 'e') + "-with-a-long-name";
  s.pvc = backup::BackupJobPvc{"backup-pvc", ""};
  auto job = backup::backup_job(s);
  CHECK(job["metadata"]["name"].get<std::string>().size() <= 63);
  CHECK(job["spec"]["activeDeadlineSeconds"] == 1800);
  check_golden("job_pvc_long_name.json", job);
}

TEST_CASE("server TLS without a client Secret: CA only; S3 key and region empty but present") {
  auto s = plain_spec();
  s.timeout = std::chrono::seconds(90);
  s.server_secret = "etcd-server-tls";
  s.s3 = backup::BackupJobS3{"http://minio.minio.svc:9000", "b", "", "", false, "creds"};
  auto job = backup::backup_job(s);
  CHECK(job["spec"]["activeDeadlineSeconds"] == 90);
  check_golden("job_s3_server_tls_only.json", job);
}

TEST_CASE("PVC wins when both destinations are given (the reference's rule)") {
  auto s = plain_spec();
  s.pvc = backup::BackupJobPvc{"pvc", "sub/dir"};
  s.s3 = backup::BackupJobS3{"https://s3", "b", "k", "r", false, "creds"};
  auto job = backup::backup_job(s);
  std::string env = job["spec"]["template"]["spec"]["containers"][0]["env"].dump();
  CHECK(env.find("\"pvc\"") != std::string::npos);
  CHECK(env.find("S3_BUCKET") == std::string::npos);
  CHECK(env.find("sub/dir") != std::string::npos);
}

TEST_CASE("Job verdict: Complete=True, Failed=True with reason and message, otherwise running") {
  using backup::JobPhase;
  CHECK(backup::job_verdict(nlohmann::json::parse(R"({"status": {}})")).phase == JobPhase::Running);
  CHECK(backup::job_verdict(nlohmann::json::parse(
                                R"({"status": {"conditions": [{"type": "Complete", "status": "False"}]}})"))
            .phase == JobPhase::Running);
  CHECK(backup::job_verdict(nlohmann::json::parse(
                                R"({"status": {"conditions": [{"type": "Complete", "status": "True"}]}})"))
            .phase == JobPhase::Complete);
  auto v = backup::job_verdict(nlohmann::json::parse(
      R"({"status": {"conditions": [{"type": "Failed", "status": "True", "reason": "DeadlineExceeded",
          "message": "Job was active longer than specified deadline"}]}})"));
  CHECK(v.phase == JobPhase::Failed);
  CHECK(v.reason == "DeadlineExceeded: Job was active longer than specified deadline");
}

TEST_CASE("pods that can never start are named at once") {
  auto pod = [](const std::string& status) { return nlohmann::json::parse(R"({"status": )" + status + "}"); };
  CHECK(backup::pod_stuck_reason(pod(R"({"phase": "Pending"})")).empty());
  CHECK(backup::pod_stuck_reason(pod(R"({"containerStatuses": [{"name": "snapshot-agent",
      "state": {"waiting": {"reason": "ContainerCreating"}}}]})"))
            .empty());
  CHECK(backup::pod_stuck_reason(pod(R"({"containerStatuses": [{"name": "snapshot-agent",
      "state": {"waiting": {"reason": "CreateContainerConfigError",
                            "message": "secret \"s3-creds\" not found"}}}]})")) ==
        "container snapshot-agent: CreateContainerConfigError: secret \"s3-creds\" not found");
  CHECK(backup::pod_stuck_reason(pod(R"({"containerStatuses": [{"name": "snapshot-agent",
      "state": {"waiting": {"reason": "ImagePullBackOff"}}}]})")) ==
        "container snapshot-agent: ImagePullBackOff");
  CHECK(backup::pod_stuck_reason(pod(R"({"conditions": [{"type": "PodScheduled", "status": "False",
      "reason": "Unschedulable", "message": "0/3 nodes are available"}]})")) ==
        "Unschedulable: 0/3 nodes are available");
}

TEST_CASE("a pod waiting for its PVC to be bound is not stuck: the volume binder binds it, the scheduler retries") {
  // What the real scheduler says for a PVC created a moment before the Job (seen on the node).
  auto pod = [](const std::string& status) { return nlohmann::json::parse(R"({"status": )" + status + "}"); };
  CHECK(backup::pod_stuck_reason(pod(R"({"conditions": [{"type": "PodScheduled", "status": "False",
      "reason": "Unschedulable",
      "message": "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found"}]})"))
            .empty());
}
