// The Kubernetes connection flags both programs share (docs/rules.md#shared-flags)
// and the one place that turns them into a client, so that
// -v request logging, --request-timeout and kubeconfig warnings behave the
// same in every command.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "cli/diag.h"
#include "kube/client.h"
#include "kube/connect_options.h"

namespace cli {


// -k/--kubeconfig, --context, -n/--namespace, --request-timeout, -v, -q.
// `ns_help` describes what -n means for this command.
void add_kube_flags(CLI::App& sub, kube::ConnectOptions& flags, const std::string& ns_help);

// --connect auto|direct|port-forward (docs/rules.md#connect-modes).
void add_connect_flag(CLI::App& sub, std::string& value);


// Loads the configuration, builds the client, sends kubeconfig warnings to
// diag, and with -v logs each request (method, path, status, time; never
// headers or bodies) to diag.
base::Result<std::unique_ptr<kube::Client>> connect_kube(const kube::ConnectOptions& flags, Diag& diag);

}  // namespace cli
