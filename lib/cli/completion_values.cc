#include "cli/completion_values.h"

#include <cstdlib>
#include <sstream>

#include "base/json_at.h"
#include "cli/diag.h"
#include "cli/kube_flags.h"
#include "kube/kubeconfig.h"
#include "kube/resource.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace cli {

namespace {

base::Result<std::vector<Candidate>> contexts(const CompletionScope& scope, const std::string& prefix) {
  std::vector<std::string> paths;
  bool skip_missing = true;
  if (!scope.kubeconfig.empty()) {
    paths.push_back(scope.kubeconfig);
    skip_missing = false;
  } else if (const char* env = std::getenv("KUBECONFIG"); env && *env) {
    paths = kube::split_kubeconfig_env(env);
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    paths.push_back(std::string(home) + "/.kube/config");
  }
  auto kc = kube::load_kubeconfig_files(paths, skip_missing);
  if (!kc) return kc.error();
  std::vector<Candidate> out;
  for (const auto& [name, ctx] : kc->contexts) {
    if (!name.starts_with(prefix)) continue;
    out.push_back({name, name == kc->current_context ? "current context" : ""});
  }
  return out;
}

}  // namespace

base::Result<std::vector<Candidate>> lookup_values(ValueKind kind, const CompletionScope& scope, const std::string& prefix) {
  if (kind == ValueKind::Context) return contexts(scope, prefix);

  const kube::Resource* resource = nullptr;
  kube::ListOptions lo;
  std::string selector_cluster = std::string(op::kLabelCluster) + (scope.cluster.empty() ? "" : "=" + scope.cluster);
  switch (kind) {
    case ValueKind::Namespace: resource = &kube::resources::namespaces; break;
    case ValueKind::Cluster: resource = &op::resources::etcdclusters; break;
    case ValueKind::Snapshot: resource = &op::resources::etcdsnapshots; break;
    case ValueKind::Member:
      resource = &op::resources::etcdmembers;
      lo.label_selector = selector_cluster;
      break;
    case ValueKind::Pod:
      resource = &kube::resources::pods;
      lo.label_selector = selector_cluster;
      break;
    default: return std::vector<Candidate>{};
  }

  // A completion must not hang the shell: a short budget, no retries worth
  // waiting for, and nothing on stderr.
  kube::ConnectOptions flags;
  flags.kubeconfig = scope.kubeconfig;
  flags.context = scope.context;
  flags.ns = scope.ns;
  flags.request_timeout = "5s";
  std::ostringstream sink;
  Diag quiet(sink, false, true);
  auto client = connect_kube(flags, quiet);
  if (!client) return client.error();
  std::string ns = resource->namespaced ? (*client)->config().ns : std::string();
  auto list = (*client)->list(*resource, ns, lo);
  if (!list) return list.error();

  std::vector<Candidate> out;
  for (const auto& item : base::array_at(*list, "/items")) {
    std::string name = base::string_at(item, "/metadata/name");
    if (name.empty() || !name.starts_with(prefix)) continue;
    std::string desc;
    if (kind == ValueKind::Member || kind == ValueKind::Pod) {
      desc = base::string_at(item, "/metadata/labels/" + base::pointer_token(op::kLabelCluster));
      if (!desc.empty()) desc = "member of " + desc;
    } else if (kind == ValueKind::Cluster || kind == ValueKind::Snapshot) {
      desc = "in " + ns;
    }
    out.push_back({name, desc});
  }
  return out;
}

}  // namespace cli
