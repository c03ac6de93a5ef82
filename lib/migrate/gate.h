// The controller-quiet gate (docs/rules.md#operator-gate): both operators must be
// at 0 replicas with no pods left, and no pod of either operator's image may
// run anywhere. Its findings are values: a dry-run shows them as W19, --apply
// refuses on them.
#pragma once

#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "kube/client.h"
#include "migrate/request.h"

namespace migrate {

struct GateReport {
  bool skipped = false;
  std::vector<std::string> findings;  // each names the Deployment or pod and what to do
  std::vector<std::string> notes;     // e.g. a Deployment that does not exist
  bool quiet() const { return findings.empty(); }
};

// Errors other than "not found" on the Deployments (e.g. 403) are returned;
// a forbidden cluster-wide pod scan becomes a note instead (the Deployments'
// own pods are still checked). `scope` is the one namespace being adopted
// ("" = all): a pod of an operator image elsewhere whose container watches
// only other namespaces is then a note, not a finding.
base::Result<GateReport> check_controllers(kube::Client& client, const Coordinates& legacy,
                                          const Coordinates& fresh, const std::string& scope);

// Whether a Deployment's label selector (matchLabels, matchExpressions)
// selects a pod with these labels; the gate filters its one cluster-wide pod
// scan with it. An empty selector selects nothing.
bool selector_matches(const nlohmann::json& selector, const nlohmann::json& labels);

// A live pod against the operators' image repositories: an operator may
// run in it (a finding), one runs that watches only namespaces other than
// `scope` (a note), or none does (the snapshot agent's pods run the
// operator image but are no operator).
struct PodUse {
  enum Kind { None, Note, Finding } kind = None;
  std::string text;
};
PodUse judge_operator_image_pod(const nlohmann::json& pod, const std::set<std::string>& repositories,
                                const std::string& scope);

// The repository part of an image reference: "reg:5000/a/b:tag@sha" -> "reg:5000/a/b".
std::string image_repository(const std::string& image);

}  // namespace migrate
