// kubeconfig files as kubectl reads them: parsed one by one, then merged in
// order with the first file winning per cluster, user and context name (and
// for current-context). Relative file paths are resolved against the folder
// of the file that names them; *-data fields are base64-decoded here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace kube {

// users[].user.exec: a client.authentication.k8s.io credential plugin.
struct ExecConfig {
  std::string api_version;  // client.authentication.k8s.io/v1 or v1beta1
  std::string command;      // resolved against base_dir when it is a relative path with a '/'
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
  std::string install_hint;
  bool provide_cluster_info = false;
  std::string interactive_mode;  // Never, IfAvailable, Always ("" = IfAvailable for v1beta1)
};

struct KubeCluster {
  std::string server;
  std::string certificate_authority;       // a path (absolute after loading)
  std::string certificate_authority_data;  // PEM (decoded)
  std::string tls_server_name;
  std::string proxy_url;
  bool insecure_skip_tls_verify = false;
};

struct KubeUser {
  std::string client_certificate;       // path
  std::string client_certificate_data;  // PEM
  std::string client_key;               // path
  std::string client_key_data;          // PEM
  std::string token;
  std::string token_file;  // path
  std::string username;    // basic auth: refused when used
  bool has_password = false;
  std::string auth_provider;  // name of a legacy auth-provider: refused when used
  std::optional<ExecConfig> exec;
};

struct KubeContext {
  std::string cluster;
  std::string user;
  std::string ns;
};

struct Kubeconfig {
  std::map<std::string, KubeCluster> clusters;
  std::map<std::string, KubeUser> users;
  std::map<std::string, KubeContext> contexts;
  std::string current_context;
  std::vector<std::string> files;  // the files read, in order
};

// Parses one file's text; `path` names it in errors and anchors relative paths.
base::Result<Kubeconfig> parse_kubeconfig(std::string_view text, const std::string& path);

// Reads and parses one file. A directory, or a YAML document that is not a
// kubeconfig (a manifest of another kind, a mapping of other keys), is said
// to be one (1); a missing file is missing_kubeconfig() (6).
base::Result<Kubeconfig> load_kubeconfig_file(const std::string& path);

// NotFound (6) for kubeconfig files none of which exists: the same line
// whether they were named by --kubeconfig or KUBECONFIG.
base::Error missing_kubeconfig(const std::vector<std::string>& paths);

// Adds what `into` lacks from `later` (the first definition of a name wins).
void merge_kubeconfig(Kubeconfig& into, const Kubeconfig& later);

// Loads and merges `paths` in order. Missing files are skipped when
// `skip_missing` (as kubectl does for KUBECONFIG entries); an empty path
// entry is ignored.
base::Result<Kubeconfig> load_kubeconfig_files(const std::vector<std::string>& paths, bool skip_missing);

// Splits KUBECONFIG on ':' dropping empty entries and duplicates.
std::vector<std::string> split_kubeconfig_env(std::string_view value);

}  // namespace kube
