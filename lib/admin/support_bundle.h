// `kubectl-etcd report` (docs/support-bundle.md): one cluster's objects and
// etcd's answers gathered into files for a bug report. Every object passes
// through bundle_redact, so no Secret value reaches a file. A step that
// fails is recorded in summary.json and the rest goes on: the bundle is
// written in any case, partial when something failed.
#pragma once

#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "admin/session.h"
#include "base/result.h"
#include "output/archive.h"

namespace kube {
class Client;
}

namespace admin {

struct BundleRequest {
  std::string ns;
  std::string cluster;
  std::string operator_deployment;  // --operator NS/NAME, "" = the default
  std::time_t now = 0;
  std::string tool_version;         // for summary.json
};

struct Bundle {
  std::string root;  // etcd-report-<ns>-<c>-<UTC yyyymmdd-hhmmss>, the archive's top folder
  std::vector<output::ArchiveFile> files;
  std::vector<std::string> errors;  // "<file or step>: <one-line error>"
};

// `session` is null when it could not be opened; `session_error` says why
// and is recorded for each etcd file. An error (and no bundle) only when
// neither a v1alpha2 nor a legacy EtcdCluster of the name exists (6) or the
// first read of the API fails (2, 7).
base::Result<Bundle> collect_bundle(kube::Client& kube, Session* session, const std::string& session_error,
                                    const BundleRequest& request, const std::function<void(const std::string&)>& progress);

// 0 nothing failed; 5 the bundle is partial (docs/exit-codes.md).
int bundle_exit_code(const Bundle& bundle);

}  // namespace admin
