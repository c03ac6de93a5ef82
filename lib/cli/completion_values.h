// The live half of shell completion: names of kubeconfig contexts (from the
// kubeconfig files) and of namespaces, EtcdClusters, EtcdMembers, member Pods
// and EtcdSnapshots (from the apiserver), for `__complete`.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "cli/completion.h"

namespace cli {

// The names of `kind` in the scope's kubeconfig/context/namespace that start
// with `prefix`; an error when the kubeconfig or the apiserver fails (the
// shell then just offers nothing).
base::Result<std::vector<Candidate>> lookup_values(ValueKind kind, const CompletionScope& scope, const std::string& prefix);

}  // namespace cli
