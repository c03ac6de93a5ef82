#include "flags.h"

#include "base/duration.h"
#include "base/text.h"
#include "cli/shared_flags.h"

namespace kubectl_etcd {

void add_cluster_flag(CLI::App& sub, std::string& value, const std::string& help) {
  sub.add_option("-c,--cluster", value, help)->group(cli::kSharedGroup);
}

void add_common_flags(CLI::App& sub, CommonFlags& f, bool with_output) {
  const char* shared = cli::kSharedGroup;
  cli::add_kube_flags(sub, f.kube, "Namespace of the cluster (default: the context's)");
  add_cluster_flag(sub, f.cluster, "The EtcdCluster to work on");
  sub.add_option("-p,--pod", f.pod, "One member's pod (its cluster comes from the pod's label without -c)")
      ->group(shared);
  sub.add_option("-s,--credentials-secret", f.credentials_secret,
                 "basic-auth Secret (NAME or NS/NAME) with root's password, instead of the cluster's")
      ->group(shared);
  sub.add_option("--endpoints", f.endpoints, "Comma-separated client URLs of any etcd ($ETCDCTL_ENDPOINTS)")
      ->group(shared);
  sub.add_option("--cacert", f.cacert, "CA file to verify the members ($ETCDCTL_CACERT)")->group(shared);
  sub.add_option("--cert", f.cert, "Client certificate file ($ETCDCTL_CERT)")->group(shared);
  sub.add_option("--key", f.key, "Client key file ($ETCDCTL_KEY)")->group(shared);
  sub.add_option("--user", f.user, "etcd user NAME[:PASSWORD] ($ETCDCTL_USER, $ETCDCTL_PASSWORD)")->group(shared);
  sub.add_option("--tls-server-name", f.tls_server_name, "Verify the members' certificates for this name")
      ->group(shared);
  sub.add_flag("--insecure-skip-tls-verify", f.insecure_skip_tls_verify, "Do not verify the members' certificates")
      ->group(shared);
  cli::add_connect_flag(sub, f.connect);
  sub.add_option("--operator", f.operator_deployment,
                 "The operator Deployment NS/NAME whose Lease says it runs (default etcd-operator-system/etcd-operator)")
      ->group(shared);
  sub.add_option("--dial-timeout", f.dial_timeout, "Connection budget per member")->default_str("5s")->group(shared);
  sub.add_option("--command-timeout", f.command_timeout, "Budget of one call per member")
      ->default_str("5s")
      ->group(shared);
  if (with_output) cli::add_output_flag(sub, f.output);
}

int fail(cli::Program& program, const base::Error& e) {
  program.diag->error(e);
  return base::exit_code(e.kind);
}

int print(cli::Program& program, const std::string& text, int rc) {
  *program.out << text;
  program.out->flush();
  return rc;
}

base::Result<KubeContext> open_kube(const CommonFlags& f, cli::Program& program) {
  program.diag->set_quiet(f.kube.quiet);
  auto k = cli::connect_kube(f.kube, *program.diag);
  if (!k) return std::move(k).error();
  KubeContext out;
  out.ns = (*k)->config().ns;
  out.kube = std::move(k.value());
  return out;
}

base::Result<Context> open(const CommonFlags& f, cli::Program& program) {
  program.diag->set_quiet(f.kube.quiet);
  auto format = output::parse_format(f.output);
  if (!format) return std::move(format).error();
  admin::TargetOptions o;
  o.cluster = f.cluster;
  o.pod = f.pod;
  o.credentials_secret = f.credentials_secret;
  o.endpoints = base::split(f.endpoints, ',');
  o.cacert = f.cacert;
  o.cert = f.cert;
  o.key = f.key;
  o.user = f.user;
  o.tls_server_name = f.tls_server_name;
  o.insecure_skip_tls_verify = f.insecure_skip_tls_verify;
  o.connect = f.connect;
  o.operator_deployment = f.operator_deployment;
  auto dial = base::parse_duration(f.dial_timeout);
  if (!dial) return std::move(dial).error();
  auto command = base::parse_duration(f.command_timeout);
  if (!command) return std::move(command).error();
  o.dial_timeout = *dial;
  o.command_timeout = *command;
  auto n = admin::normalize(std::move(o), admin::process_env());
  if (!n) return std::move(n).error();

  Context ctx;
  ctx.format = *format;
  // --endpoints needs the API only for -s.
  bool need_kube = n->endpoints.empty() || !n->credentials_secret.empty();
  if (need_kube) {
    auto k = cli::connect_kube(f.kube, *program.diag);
    if (!k) return std::move(k).error();
    ctx.kube = std::move(k.value());
    n->ns = ctx.kube->config().ns;
  }
  auto t = admin::resolve(*n, ctx.kube.get());
  if (!t) return std::move(t).error();
  auto s = admin::open_session(std::move(t.value()));
  if (!s) return std::move(s).error();
  ctx.session = std::move(s.value());
  return ctx;
}

}  // namespace kubectl_etcd
