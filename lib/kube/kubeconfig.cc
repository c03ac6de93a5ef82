#include "kube/kubeconfig.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "base/text.h"
#include "kube/base64.h"

namespace kube {

namespace {

using base::ErrorKind;

base::Error config_error(const std::string& path, std::string message, std::string hint = {}) {
  return base::make_error(ErrorKind::Failed, std::move(message), "kubeconfig \"" + path + "\"", std::move(hint));
}

// The keys a kubeconfig (kind Config) may hold at its top.
bool kubeconfig_key(const std::string& key) {
  static const std::set<std::string> keys = {"apiVersion", "kind",     "preferences",     "clusters",
                                             "users",      "contexts", "current-context", "extensions"};
  return keys.count(key) > 0;
}

// A mapping that is some other YAML document: a manifest (kind: Deployment)
// or a file of other keys. "" when it may be a kubeconfig.
std::string other_document(const YAML::Node& root) {
  const YAML::Node kind = root["kind"];
  if (kind && kind.IsScalar() && kind.Scalar() != "Config") {
    const YAML::Node api = root["apiVersion"];
    return "a YAML document of kind " + kind.Scalar() +
           (api && api.IsScalar() && !api.Scalar().empty() ? " (" + api.Scalar() + ")" : std::string()) +
           ", not Config";
  }
  std::vector<std::string> others;
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) continue;
    if (kubeconfig_key(kv.first.Scalar())) return {};
    others.push_back(kv.first.Scalar());
  }
  if (others.empty()) return {};
  std::string names;
  for (std::size_t i = 0; i < others.size() && i < 3; ++i) names += (i ? ", " : "") + others[i];
  if (others.size() > 3) names += ", ...";
  return "a YAML mapping of " + names + ", with none of clusters, contexts, users or current-context";
}

constexpr const char* kNotKubeconfigHint = "give a kubeconfig file (kind: Config), e.g. ~/.kube/config";

std::string resolve(const std::string& base_dir, const std::string& p) {
  if (p.empty() || p.front() == '/' || base_dir.empty()) return p;
  if (p.front() == '~' && (p.size() == 1 || p[1] == '/')) return p;  // left to the shell's meaning
  return (std::filesystem::path(base_dir) / p).lexically_normal().string();
}

// Reads a scalar; a missing key or null gives "". Non-scalars are errors.
std::string scalar(const YAML::Node& n, const char* key, const std::string& where, std::string* err) {
  YAML::Node v = n[key];
  if (!v || v.IsNull()) return {};
  if (!v.IsScalar()) {
    *err = where + "." + key + " is not a string";
    return {};
  }
  return v.Scalar();
}

bool boolean(const YAML::Node& n, const char* key, const std::string& where, std::string* err) {
  YAML::Node v = n[key];
  if (!v || v.IsNull()) return false;
  bool b = false;
  if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b)) {
    *err = where + "." + key + " is not a boolean";
    return false;
  }
  return b;
}

std::string data(const YAML::Node& n, const char* key, const std::string& where, std::string* err) {
  std::string raw = scalar(n, key, where, err);
  if (raw.empty()) return {};
  auto decoded = base64_decode(raw);
  if (!decoded) {
    *err = where + "." + key + " is not valid base64";
    return {};
  }
  return *decoded;
}

// The named entries of a list such as clusters: [{name, cluster: {...}}].
template <class F>
bool each_named(const YAML::Node& root, const char* list, const char* inner, std::string* err, F f) {
  YAML::Node l = root[list];
  if (!l || l.IsNull()) return true;
  if (!l.IsSequence()) {
    *err = std::string(list) + " is not a list";
    return false;
  }
  for (size_t i = 0; i < l.size(); ++i) {
    YAML::Node item = l[i];
    std::string where = std::string(list) + "[" + std::to_string(i) + "]";
    if (!item.IsMap()) {
      *err = where + " is not a mapping";
      return false;
    }
    std::string name = scalar(item, "name", where, err);
    if (!err->empty()) return false;
    if (name.empty()) {
      *err = where + " has no name";
      return false;
    }
    YAML::Node body = item[inner];
    if (body && !body.IsNull() && !body.IsMap()) {
      *err = std::string(list) + " \"" + name + "\": " + inner + " is not a mapping";
      return false;
    }
    f(name, body ? body : YAML::Node(YAML::NodeType::Map),
      std::string(list) + "[\"" + name + "\"]." + inner);
    if (!err->empty()) return false;
  }
  return true;
}

std::optional<ExecConfig> parse_exec(const YAML::Node& n, const std::string& where, std::string* err) {
  YAML::Node e = n["exec"];
  if (!e || e.IsNull()) return std::nullopt;
  if (!e.IsMap()) {
    *err = where + ".exec is not a mapping";
    return std::nullopt;
  }
  ExecConfig x;
  std::string w = where + ".exec";
  x.api_version = scalar(e, "apiVersion", w, err);
  x.command = scalar(e, "command", w, err);
  x.install_hint = scalar(e, "installHint", w, err);
  x.provide_cluster_info = boolean(e, "provideClusterInfo", w, err);
  x.interactive_mode = scalar(e, "interactiveMode", w, err);
  if (YAML::Node a = e["args"]; a && !a.IsNull()) {
    if (!a.IsSequence()) *err = w + ".args is not a list";
    else
      for (const auto& s : a) x.args.push_back(s.IsScalar() ? s.Scalar() : std::string());
  }
  if (YAML::Node env = e["env"]; env && !env.IsNull()) {
    if (!env.IsSequence()) {
      *err = w + ".env is not a list";
    } else {
      for (const auto& kv : env) {
        if (!kv.IsMap()) {
          *err = w + ".env holds a non-mapping";
          break;
        }
        x.env.emplace_back(scalar(kv, "name", w + ".env", err), scalar(kv, "value", w + ".env", err));
      }
    }
  }
  if (err->empty() && x.command.empty()) *err = w + ".command is empty";
  return x;
}

}  // namespace

base::Result<Kubeconfig> parse_kubeconfig(std::string_view text, const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& ex) {
    return config_error(path, "invalid YAML at line " + std::to_string(ex.mark.line + 1) + ": " + ex.msg);
  }
  Kubeconfig kc;
  kc.files.push_back(path);
  if (!root || root.IsNull()) return kc;  // an empty file is an empty config, as for kubectl
  if (!root.IsMap()) return config_error(path, "not a kubeconfig: the document is not a mapping", kNotKubeconfigHint);
  if (std::string other = other_document(root); !other.empty()) {
    return config_error(path, "not a kubeconfig: " + other, kNotKubeconfigHint);
  }
  std::string base = std::filesystem::path(path).parent_path().string();
  std::string err;
  try {
    kc.current_context = scalar(root, "current-context", "", &err);
    each_named(root, "clusters", "cluster", &err, [&](const std::string& name, const YAML::Node& c,
                                                      const std::string& w) {
      KubeCluster k;
      k.server = scalar(c, "server", w, &err);
      k.certificate_authority = resolve(base, scalar(c, "certificate-authority", w, &err));
      k.certificate_authority_data = data(c, "certificate-authority-data", w, &err);
      k.tls_server_name = scalar(c, "tls-server-name", w, &err);
      k.proxy_url = scalar(c, "proxy-url", w, &err);
      k.insecure_skip_tls_verify = boolean(c, "insecure-skip-tls-verify", w, &err);
      kc.clusters.emplace(name, std::move(k));  // within a file too, the first wins
    });
    if (err.empty()) {
      each_named(root, "users", "user", &err, [&](const std::string& name, const YAML::Node& u,
                                                  const std::string& w) {
        KubeUser k;
        k.client_certificate = resolve(base, scalar(u, "client-certificate", w, &err));
        k.client_certificate_data = data(u, "client-certificate-data", w, &err);
        k.client_key = resolve(base, scalar(u, "client-key", w, &err));
        k.client_key_data = data(u, "client-key-data", w, &err);
        k.token = scalar(u, "token", w, &err);
        k.token_file = resolve(base, scalar(u, "tokenFile", w, &err));
        k.username = scalar(u, "username", w, &err);
        k.has_password = !scalar(u, "password", w, &err).empty();
        if (YAML::Node ap = u["auth-provider"]; ap && ap.IsMap()) {
          k.auth_provider = ap["name"] && ap["name"].IsScalar() ? ap["name"].Scalar() : "unnamed";
        }
        k.exec = parse_exec(u, w, &err);
        if (k.exec && k.exec->command.find('/') != std::string::npos) {
          k.exec->command = resolve(base, k.exec->command);
        }
        kc.users.emplace(name, std::move(k));
      });
    }
    if (err.empty()) {
      each_named(root, "contexts", "context", &err, [&](const std::string& name, const YAML::Node& c,
                                                        const std::string& w) {
        KubeContext k;
        k.cluster = scalar(c, "cluster", w, &err);
        k.user = scalar(c, "user", w, &err);
        k.ns = scalar(c, "namespace", w, &err);
        kc.contexts.emplace(name, std::move(k));
      });
    }
  } catch (const YAML::Exception& ex) {
    err = ex.msg;
  }
  if (!err.empty()) return config_error(path, err);
  return kc;
}

base::Error missing_kubeconfig(const std::vector<std::string>& paths) {
  // The exit code tells a missing file from an unreadable one, as for every
  // other named object the user gave, whichever way it was named.
  return base::make_error(ErrorKind::NotFound,
                          paths.size() == 1 ? std::string("cannot read: ") + std::strerror(ENOENT)
                                            : "cannot read: none of these files exists",
                          "kubeconfig \"" + base::join(paths, ":") + "\"",
                          "give an existing file with --kubeconfig or KUBECONFIG");
}

base::Result<Kubeconfig> load_kubeconfig_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    // An ifstream opens a folder and reads nothing: that would pass for an
    // empty kubeconfig and end in "current-context is not set".
    const std::string inside = (std::filesystem::path(path) / "config").string();
    return config_error(path, "not a kubeconfig: a directory",
                        std::filesystem::is_regular_file(inside, ec) ? "give the file itself, e.g. " + inside
                                                                     : std::string(kNotKubeconfigHint));
  }
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    const int e = errno;
    if (e == ENOENT || e == ENOTDIR) return missing_kubeconfig({path});
    auto err = config_error(path, std::string("cannot read: ") + std::strerror(e));
    if (e == EACCES || e == EPERM) err.kind = ErrorKind::PermissionDenied;
    return err;
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return parse_kubeconfig(ss.str(), path);
}

void merge_kubeconfig(Kubeconfig& into, const Kubeconfig& later) {
  for (const auto& [k, v] : later.clusters) into.clusters.emplace(k, v);
  for (const auto& [k, v] : later.users) into.users.emplace(k, v);
  for (const auto& [k, v] : later.contexts) into.contexts.emplace(k, v);
  if (into.current_context.empty()) into.current_context = later.current_context;
  for (const auto& f : later.files) into.files.push_back(f);
}

base::Result<Kubeconfig> load_kubeconfig_files(const std::vector<std::string>& paths, bool skip_missing) {
  Kubeconfig merged;
  for (const auto& p : paths) {
    if (p.empty()) continue;
    std::error_code ec;
    if (skip_missing && !std::filesystem::exists(p, ec)) continue;
    auto one = load_kubeconfig_file(p);
    if (!one) return std::move(one).error();
    merge_kubeconfig(merged, *one);
  }
  return merged;
}

std::vector<std::string> split_kubeconfig_env(std::string_view value) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  size_t start = 0;
  while (start <= value.size()) {
    auto colon = value.find(':', start);
    std::string part(value.substr(start, colon == std::string_view::npos ? std::string_view::npos
                                                                          : colon - start));
    if (!part.empty() && seen.insert(part).second) out.push_back(part);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return out;
}

}  // namespace kube
