// The Kubernetes connection flags both programs share (docs/rules.md#shared-flags)
// and the one place that turns them into a client, so that
// -v request logging, --request-timeout and kubeconfig warnings behave the
// same in every command.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/diag.h"
#include "cli/result.h"
#include "kube/client.h"

namespace cli {

struct KubeFlags {
  std::string kubeconfig;
  std::string context;
  std::string ns;
  std::string request_timeout = "0";  // kubectl syntax: 0 = the client's default
  int verbose = 0;
  bool quiet = false;
};

// -k/--kubeconfig, --context, -n/--namespace, --request-timeout, -v, -q.
// `ns_help` describes what -n means for this command.
void add_kube_flags(CLI::App& sub, KubeFlags& flags, const std::string& ns_help);

// "30s", "2m", "1h30m", "500ms", or a bare number of seconds (kubectl's form).
Result<std::chrono::milliseconds> parse_duration(const std::string& text);

// Loads the configuration, builds the client, sends kubeconfig warnings to
// diag, and with -v logs each request (method, path, status, time; never
// headers or bodies) to diag.
Result<std::unique_ptr<kube::Client>> connect_kube(const KubeFlags& flags, Diag& diag);

}  // namespace cli
