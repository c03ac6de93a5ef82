// The flags every kubectl-etcd command shares (docs/rules.md#shared-flags): the
// Kubernetes connection, the target (-c, -p, -s, or --endpoints with
// etcdctl's TLS flags), --connect, timeouts and -o; and the one place that
// turns them into a session.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "admin/session.h"
#include "base/result.h"
#include "cli/command.h"
#include "cli/kube_flags.h"
#include "kube/client.h"
#include "output/format.h"

namespace kubectl_etcd {

struct CommonFlags {
  kube::ConnectOptions kube;
  std::string cluster, pod, credentials_secret;
  std::string endpoints;
  std::string cacert, cert, key, user, tls_server_name;
  bool insecure_skip_tls_verify = false;
  std::string connect = "auto";
  std::string dial_timeout = "5s";
  std::string command_timeout = "5s";
  std::string output = "table";
  std::string operator_deployment;
};

// Adds the shared flags to a leaf command; `with_output` adds -o too. They
// are accepted before the command name as well (cli/shared_flags.h).
void add_common_flags(CLI::App& sub, CommonFlags& f, bool with_output = true);
// -c/--cluster alone, for commands that take no other target flag.
void add_cluster_flag(CLI::App& sub, std::string& value, const std::string& help);

// Everything a command needs once parsed: the Kubernetes client (null with
// --endpoints), the session and the output format.
struct Context {
  std::unique_ptr<kube::Client> kube;
  admin::Session session;
  output::Format format = output::Format::Table;
};

base::Result<Context> open(const CommonFlags& f, cli::Program& program);
// The Kubernetes client and namespace alone (commands that read CRs only).
struct KubeContext {
  std::unique_ptr<kube::Client> kube;
  std::string ns;
};
base::Result<KubeContext> open_kube(const CommonFlags& f, cli::Program& program);

// Prints the error and returns its exit code.
int fail(cli::Program& program, const base::Error& e);
// Writes text to stdout and returns rc.
int print(cli::Program& program, const std::string& text, int rc);

// Shared holder for a command's options, kept alive by the callbacks.
template <class T>
std::shared_ptr<T> options() {
  return std::make_shared<T>();
}

}  // namespace kubectl_etcd
