// The result line the operator's snapshot agent prints once its artefact is
// stored (docs/rules.md#backup-job): `snapshot uploaded: uri="U" size=N
// sha256=H`. The operator's EtcdSnapshot controller reads it from the agent
// Pod's log; `--backup-mode job` reads the same line, so the adoption goes
// on only with the artefact's location, size and sha256 in hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace op {

// The agent's container in the snapshot Jobs (the reference's and ours).
inline constexpr std::string_view kAgentContainer = "snapshot-agent";

struct AgentResult {
  std::string uri;     // s3://bucket/key, or file:// and the path inside the Pod
  std::uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits
};

// The last well-formed result line of a log, or nothing.
std::optional<AgentResult> parse_agent_result(std::string_view log);

// The Job the operator runs for an EtcdSnapshot, <snapshot>-snapshot, and
// Kubernetes' label naming a Job on its pods: a failed snapshot's reason
// ("JobFailed") says nothing of why; its agent's last words do.
std::string snapshot_job_name(std::string_view snapshot);
inline constexpr std::string_view kLabelJobName = "batch.kubernetes.io/job-name";

// The last non-empty line of a log, at most `limit` characters (cut with
// "..."): what an agent that failed said last.
std::string last_log_line(std::string_view log, std::size_t limit = 300);

}  // namespace op
