#include "cli/kube_flags.h"

#include <sstream>

#include "base/duration.h"
#include "cli/shared_flags.h"
#include "kube/config.h"

namespace cli {

void add_kube_flags(CLI::App& sub, kube::ConnectOptions& flags, const std::string& ns_help) {
  sub.add_option("-k,--kubeconfig", flags.kubeconfig,
                 "Path to one kubeconfig file (default: $KUBECONFIG, merged, else ~/.kube/config)")
      ->group(kSharedGroup);
  sub.add_option("--context", flags.context, "The kubeconfig context to use")->group(kSharedGroup);
  sub.add_option("-n,--namespace", flags.ns, ns_help)->group(kSharedGroup);
  sub.add_option("--request-timeout", flags.request_timeout,
                 "Timeout of each Kubernetes API request (e.g. 30s, 1m; 0 = default)")
      ->default_str("0")
      ->group(kSharedGroup);
  sub.add_flag("-v,--verbose", flags.verbose, "Log each Kubernetes API request on stderr (repeatable)")
      ->group(kSharedGroup);
  sub.add_flag("-q,--quiet", flags.quiet, "No progress lines or notes on stderr")->group(kSharedGroup);
}

void add_connect_flag(CLI::App& sub, std::string& value) {
  sub.add_option("--connect", value, "How etcd members are reached: auto|direct|port-forward")
      ->check(CLI::IsMember({"auto", "direct", "port-forward"}))
      ->default_str("auto")
      ->group(kSharedGroup);
}

base::Result<std::unique_ptr<kube::Client>> connect_kube(const kube::ConnectOptions& flags, Diag& diag) {
  auto timeout = base::parse_duration(flags.request_timeout);
  if (!timeout) return timeout.error();
  kube::ConfigOptions co;
  co.kubeconfig = flags.kubeconfig;
  co.context = flags.context;
  co.ns = flags.ns;
  auto config = kube::load_config(co);
  if (!config) return config.error();
  for (const auto& w : config->warnings) diag.warning(w);
  kube::ClientOptions options;
  if (timeout->count() > 0) options.transport.request_timeout = *timeout;
  if (flags.verbose > 0) {
    diag.set_verbosity(flags.verbose);
    options.transport.log = [&diag](const kube::RequestLogEntry& e) {
      std::ostringstream line;
      line << e.method << ' ' << e.path << ' ';
      if (e.status) line << e.status;
      else line << "(no answer: " << e.error << ')';
      line << ' ' << e.duration.count() << "ms";
      diag.verbose(line.str());
    };
  }
  return kube::Client::create(*config, options);
}

}  // namespace cli
