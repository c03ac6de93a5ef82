#include "kube/exec_credential.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_at.h"
#include "base/rfc3339.h"
#include "kube/base64.h"

extern char** environ;

namespace kube {

namespace {

using base::ErrorKind;

base::Error plugin_error(const ExecConfig& c, std::string message, std::string hint = {}) {
  return base::make_error(ErrorKind::PermissionDenied, std::move(message),
                         "exec credential plugin \"" + c.command + "\"", std::move(hint));
}

std::string tail_line(const std::string& text) {
  std::string folded = base::fold_line(text);
  if (folded.size() > 300) folded = "..." + folded.substr(folded.size() - 300);
  return folded;
}

}  // namespace


base::Result<ExecCredential> parse_exec_credential(std::string_view text, std::string_view api_version) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  auto bad = [](std::string m) { return base::make_error(ErrorKind::PermissionDenied, std::move(m)); };
  if (!j.is_object()) return bad("the plugin did not print an ExecCredential (its output is not JSON)");
  // Fields read without throwing: a plugin printing a number where a
  // string belongs gets the error below, not an uncaught type_error (found
  // by fuzz-exec-credential).
  std::string kind = base::string_at(j, "/kind");
  std::string api = base::string_at(j, "/apiVersion");
  if (kind != "ExecCredential") return bad("the plugin printed kind \"" + kind + "\", not ExecCredential");
  if (api != api_version) {
    return bad("the plugin printed apiVersion \"" + api + "\", the kubeconfig asks for \"" +
               std::string(api_version) + "\"");
  }
  const nlohmann::json* status = base::find_at(j, "/status");
  if (status == nullptr || !status->is_object()) return bad("the plugin's ExecCredential has no status");
  const auto& st = *status;
  ExecCredential c;
  c.token = base::string_at(st, "/token");
  c.client_certificate_pem = base::string_at(st, "/clientCertificateData");
  c.client_key_pem = base::string_at(st, "/clientKeyData");
  if (c.token.empty() && (c.client_certificate_pem.empty() || c.client_key_pem.empty())) {
    return bad("the plugin's ExecCredential has neither a token nor a client certificate and key");
  }
  if (c.client_certificate_pem.empty() != c.client_key_pem.empty()) {
    return bad("the plugin's ExecCredential has only one of clientCertificateData and clientKeyData");
  }
  if (st.contains("expirationTimestamp") && st["expirationTimestamp"].is_string()) {
    auto t = base::parse_rfc3339(st["expirationTimestamp"].get<std::string>());
    if (!t) return bad("the plugin's expirationTimestamp is not an RFC 3339 time");
    c.expiration = t;
  }
  return c;
}

std::string exec_info_json(const ExecConfig& config, const ExecClusterInfo& cluster, bool interactive) {
  nlohmann::json j = {{"apiVersion", config.api_version}, {"kind", "ExecCredential"},
                      {"spec", {{"interactive", interactive}}}};
  if (config.provide_cluster_info) {
    nlohmann::json c = {{"server", cluster.server}};
    if (!cluster.tls_server_name.empty()) c["tls-server-name"] = cluster.tls_server_name;
    if (cluster.insecure_skip_tls_verify) c["insecure-skip-tls-verify"] = true;
    if (!cluster.ca_pem.empty()) c["certificate-authority-data"] = base64_encode(cluster.ca_pem);
    j["spec"]["cluster"] = c;
  }
  return j.dump();
}

base::Result<ExecCredential> run_exec_plugin(const ExecConfig& config, const ExecClusterInfo& cluster,
                                            bool stdin_is_terminal) {
  const bool v1 = config.api_version == "client.authentication.k8s.io/v1";
  if (!v1 && config.api_version != "client.authentication.k8s.io/v1beta1") {
    return plugin_error(config, "apiVersion \"" + config.api_version + "\" is not supported",
                        "use client.authentication.k8s.io/v1 or v1beta1");
  }
  std::string mode = config.interactive_mode;
  if (mode.empty()) {
    if (v1) return plugin_error(config, "interactiveMode must be set for client.authentication.k8s.io/v1");
    mode = "IfAvailable";
  }
  if (mode != "Never" && mode != "IfAvailable" && mode != "Always") {
    return plugin_error(config, "interactiveMode \"" + mode + "\" is not Never, IfAvailable or Always");
  }
  if (mode == "Always" && !stdin_is_terminal) {
    return plugin_error(config, "needs an interactive terminal (interactiveMode Always), but stdin is not one");
  }
  const bool interactive = mode != "Never" && stdin_is_terminal;

  std::map<std::string, std::string> envmap;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv(*e);
    auto eq = kv.find('=');
    if (eq != std::string::npos) envmap[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : config.env) envmap[k] = v;
  envmap["KUBERNETES_EXEC_INFO"] = exec_info_json(config, cluster, interactive);
  std::vector<std::string> env_strings;
  for (const auto& [k, v] : envmap) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args{config.command};
  args.insert(args.end(), config.args.begin(), config.args.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return plugin_error(config, std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  // Interactive plugins talk to the user on the terminal (stdin, stderr);
  // otherwise stdin is closed off and stderr kept for the error message.
  if (!interactive) posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  if (!interactive) posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    return plugin_error(config, std::string("cannot run: ") + std::strerror(rc),
                        config.install_hint.empty() ? std::string() : base::fold_line(config.install_hint));
  }
  std::string sout, serr;
  bool out_open = true, err_open = true;
  char buf[16384];
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (out_open) fds.push_back({out[0], POLLIN, 0});
    if (err_open) fds.push_back({err[0], POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (const auto& p : fds) {
      if (p.revents == 0) continue;
      ssize_t n = read(p.fd, buf, sizeof buf);
      if (n <= 0) {
        (p.fd == out[0] ? out_open : err_open) = false;
      } else {
        (p.fd == out[0] ? sout : serr).append(buf, static_cast<size_t>(n));
      }
    }
  }
  close(out[0]);
  close(err[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string why = WIFEXITED(status) ? "exited with " + std::to_string(WEXITSTATUS(status))
                                        : "killed by signal " + std::to_string(WTERMSIG(status));
    if (!serr.empty()) why += ": " + tail_line(serr);
    std::string hint;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) hint = base::fold_line(config.install_hint);
    return plugin_error(config, why, hint);
  }
  auto cred = parse_exec_credential(sout, config.api_version);
  if (!cred) return plugin_error(config, cred.error().message);
  return cred;
}

ExecProvider::ExecProvider(ExecConfig config, ExecClusterInfo cluster)
    : config_(std::move(config)), cluster_(std::move(cluster)) {}

base::Result<ExecCredential> ExecProvider::get() {
  std::lock_guard lock(mu_);
  auto now = std::chrono::system_clock::now();
  if (cached_ && (!cached_->expiration || now < *cached_->expiration)) return *cached_;
  cached_.reset();
  ++runs_;
  auto c = run_exec_plugin(config_, cluster_, isatty(0) != 0);
  if (!c) return c;
  cached_ = *c;
  return c;
}

void ExecProvider::invalidate() {
  std::lock_guard lock(mu_);
  cached_.reset();
}

int ExecProvider::runs() const {
  std::lock_guard lock(mu_);
  return runs_;
}

}  // namespace kube
