#include "cli/kube_flags.h"

#include <cctype>
#include <sstream>

#include "kube/config.h"

namespace cli {

void add_kube_flags(CLI::App& sub, KubeFlags& flags, const std::string& ns_help) {
  sub.add_option("-k,--kubeconfig", flags.kubeconfig,
                 "Path to one kubeconfig file (default: $KUBECONFIG, merged, else ~/.kube/config)");
  sub.add_option("--context", flags.context, "The kubeconfig context to use");
  sub.add_option("-n,--namespace", flags.ns, ns_help);
  sub.add_option("--request-timeout", flags.request_timeout,
                 "Timeout of each Kubernetes API request (e.g. 30s, 1m; 0 = default)")
      ->default_str("0");
  sub.add_flag("-v,--verbose", flags.verbose, "Log each Kubernetes API request on stderr (repeatable)");
  sub.add_flag("-q,--quiet", flags.quiet, "No progress lines or notes on stderr");
}

Result<std::chrono::milliseconds> parse_duration(const std::string& text) {
  auto bad = [&] {
    return make_error(ErrorKind::Usage, "invalid duration \"" + text + "\"", {},
                      "use a number with a unit, e.g. 30s, 5m, 1h30m, 500ms");
  };
  if (text.empty()) return bad();
  bool all_digits = true;
  for (char c : text) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
  if (all_digits) {
    if (text.size() > 9) return bad();
    return std::chrono::milliseconds(std::stoll(text) * 1000);
  }
  double total_ms = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
    if (start == i) return bad();
    double value = 0;
    try {
      value = std::stod(text.substr(start, i - start));
    } catch (...) {
      return bad();
    }
    size_t ustart = i;
    while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) ++i;
    std::string unit = text.substr(ustart, i - ustart);
    double scale = 0;
    if (unit == "ms") scale = 1;
    else if (unit == "s") scale = 1000;
    else if (unit == "m") scale = 60000;
    else if (unit == "h") scale = 3600000;
    else return bad();
    total_ms += value * scale;
  }
  if (total_ms > 1e12) return bad();
  return std::chrono::milliseconds(static_cast<long long>(total_ms));
}

Result<std::unique_ptr<kube::Client>> connect_kube(const KubeFlags& flags, Diag& diag) {
  auto timeout = parse_duration(flags.request_timeout);
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
