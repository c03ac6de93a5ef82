#include "admin/target.h"

#include <cstdlib>
#include <map>

#include "admin/pod_restarts.h"
#include "base/json_at.h"
#include "base/text.h"
#include "etcd/member_id.h"
#include "etcd/tls.h"
#include "kube/base64.h"
#include "kube/client.h"
#include "kube/conditions.h"
#include "kube/local_forward.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

namespace {

using json = nlohmann::json;

std::string svc_of(const json& cluster, const json& member) {
  std::string svc = base::string_at(member, "/metadata/annotations/" + base::pointer_token(op::kAnnHeadlessServiceName));
  return svc.empty() ? base::string_at(cluster, "/metadata/name") : svc;
}

}  // namespace

Getenv process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

base::Result<ConnectMode> parse_connect(const std::string& value, const Getenv& env) {
  if (value == "direct") return ConnectMode::Direct;
  if (value == "port-forward") return ConnectMode::PortForward;
  if (value == "auto") {
    auto host = env("KUBERNETES_SERVICE_HOST");
    return host && !host->empty() ? ConnectMode::Direct : ConnectMode::PortForward;
  }
  return base::make_error(base::ErrorKind::Usage, "invalid --connect \"" + value + "\"", {},
                         "use auto, direct or port-forward");
}

base::Result<TargetOptions> normalize(TargetOptions o, const Getenv& env) {
  auto mode = parse_connect(o.connect, env);
  if (!mode) return std::move(mode).error();
  bool k8s = !o.cluster.empty() || !o.pod.empty();
  if (!k8s && !o.endpoints.empty() && o.connect == "port-forward") {
    return base::make_error(base::ErrorKind::Usage, "--connect port-forward needs a cluster (-c/--cluster or -p/--pod)", {},
                           "--endpoints are dialled as given");
  }
  // --endpoints bypass Kubernetes: always dialled as given.
  o.connect = *mode == ConnectMode::PortForward && o.endpoints.empty() ? "port-forward" : "direct";
  if (k8s && !o.endpoints.empty()) {
    return base::make_error(base::ErrorKind::Usage, "--endpoints cannot be combined with -c/--cluster or -p/--pod", {},
                           "name a cluster, or give endpoints for any etcd");
  }
  if (!k8s) {
    auto get = [&](const char* name, std::string& into) {
      if (!into.empty()) return;
      if (auto v = env(name)) into = *v;
    };
    if (o.endpoints.empty()) {
      if (auto v = env("ETCDCTL_ENDPOINTS")) o.endpoints = base::split(*v, ',');
    }
    get("ETCDCTL_CACERT", o.cacert);
    get("ETCDCTL_CERT", o.cert);
    get("ETCDCTL_KEY", o.key);
    get("ETCDCTL_USER", o.user);
    if (!o.insecure_skip_tls_verify) {
      auto v = env("ETCDCTL_INSECURE_SKIP_TLS_VERIFY");
      o.insecure_skip_tls_verify = v && (*v == "true" || *v == "1");
    }
    if (o.endpoints.empty()) {
      return base::make_error(base::ErrorKind::Usage, "no target: give -c/--cluster NAME, -p/--pod NAME or --endpoints", {},
                             "e.g. kubectl etcd status -c my-cluster -n my-namespace");
    }
  }
  if (!o.user.empty() && o.user.find(':') == std::string::npos) {
    auto pw = env("ETCDCTL_PASSWORD");
    if (!pw) {
      return base::make_error(base::ErrorKind::Usage, "--user needs a password", {},
                             "give --user NAME:PASSWORD or set ETCDCTL_PASSWORD");
    }
    o.user += ":" + *pw;
  }
  if (o.cert.empty() != o.key.empty()) {
    return base::make_error(base::ErrorKind::Usage, "--cert and --key go together");
  }
  if (o.dial_timeout.count() <= 0 || o.command_timeout.count() <= 0) {
    return base::make_error(base::ErrorKind::Usage, "--dial-timeout and --command-timeout must be positive");
  }
  return o;
}

bool client_tls(const json& cluster) { return base::find_at(cluster, "/spec/tls/client") != nullptr; }

std::string peer_url(const json& cluster, const json& member) {
  bool peer_tls = base::find_at(cluster, "/spec/tls/peer") != nullptr;
  if (!peer_tls) {
    std::string ann = std::string(op::kAnnPeerAutoTls);
    const auto& anns = cluster.contains("metadata") ? base::object_at(cluster, "/metadata/annotations")
                                                    : json::object();
    peer_tls = base::string_at(anns, "/" + base::pointer_token(ann)) == "true";
  }
  std::string m = base::string_at(member, "/metadata/name");
  std::string ns = base::string_at(cluster, "/metadata/namespace");
  return std::string(peer_tls ? "https" : "http") + "://" + op::member_dns(m, svc_of(cluster, member), ns) + ":" +
         std::to_string(op::kPeerPort);
}

std::vector<MemberTarget> member_targets(const json& cluster, const json& members, const json& pods) {
  std::map<std::string, const json*> pod_by_name;
  for (const auto& p : pods) pod_by_name[base::string_at(p, "/metadata/name")] = &p;
  const std::string scheme = client_tls(cluster) ? "https" : "http";
  const std::string ns = base::string_at(cluster, "/metadata/namespace");
  std::vector<MemberTarget> out;
  for (const auto& m : members) {
    MemberTarget t;
    t.name = base::string_at(m, "/metadata/name");
    t.server_name = op::member_dns(t.name, svc_of(cluster, m), ns);
    t.voter = base::bool_at(m, "/status/isVoter");
    if (auto id = base::string_at(m, "/status/memberID"); !id.empty()) {
      if (auto parsed = etcd::parse_member_id(id)) t.id = *parsed;
    }
    auto it = pod_by_name.find(t.name);
    if (base::bool_at(m, "/spec/dormant")) {
      t.problem = "member is dormant (cluster paused)";
    } else if (base::string_at(m, "/spec/initialCluster").empty()) {
      t.problem = "member is pending (no Pod yet)";
    } else if (it == pod_by_name.end()) {
      t.problem = "pod \"" + t.name + "\" does not exist";
    } else if (std::string ip = base::string_at(*it->second, "/status/podIP"); ip.empty()) {
      t.problem = "pod \"" + t.name + "\" has no IP";
    } else {
      t.pod_ready = kube::condition_true(*it->second, "Ready");
      if (const auto r = etcd_container_restarts(*it->second); r.found) t.restarts = r.count;
      std::string host = ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
      t.endpoint = scheme + "://" + host + ":" + std::to_string(op::kClientPort);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<std::string> cluster_endpoints(const std::vector<MemberTarget>& members) {
  std::vector<std::string> voters, all;
  for (const auto& m : members) {
    if (m.endpoint.empty()) continue;
    all.push_back(m.endpoint);
    if (m.voter && m.pod_ready) voters.push_back(m.endpoint);
  }
  return voters.empty() ? all : voters;
}

std::vector<const MemberTarget*> Target::selected() const {
  std::vector<const MemberTarget*> out;
  for (const auto& m : members) {
    if (pod.empty() || m.name == pod) out.push_back(&m);
  }
  return out;
}

namespace {

base::Result<json> secret_data(kube::Client& kube, const std::string& ns, const std::string& name) {
  auto s = kube.get(kube::resources::secrets, ns, name);
  if (!s) return std::move(s).error();
  json out = json::object();
  {
    for (const auto& [k, v] : base::object_at(*s, "/data").items()) {
      if (!v.is_string()) continue;
      auto d = kube::base64_decode(v.get<std::string>());
      if (!d) {
        return base::make_error(base::ErrorKind::Failed, "key \"" + k + "\" is not valid base64",
                               kube::resources::secrets.describe(ns, name));
      }
      out[k] = *d;
    }
  }
  return out;
}

base::Status apply_cluster_tls(kube::Client& kube, const TargetOptions& o, const json& cluster, etcd::Config& cfg) {
  if (!client_tls(cluster)) return {};
  const std::string ns = base::string_at(cluster, "/metadata/namespace");
  const std::string c = base::string_at(cluster, "/metadata/name");
  const json& client = base::object_at(cluster, "/spec/tls/client");
  std::string server_secret = base::string_at(client, "/serverSecretRef/name");
  if (server_secret.empty()) server_secret = op::cert_manager_server_secret(c);
  std::string client_secret = base::string_at(client, "/operatorClientSecretRef/name");
  if (client_secret.empty() && base::find_at(client, "/certManager/operatorClientIssuerRef") != nullptr) {
    client_secret = op::cert_manager_operator_client_secret(c);
  }
  if (o.cacert.empty()) {
    auto d = secret_data(kube, ns, server_secret);
    if (!d) return std::move(d).error();
    cfg.tls.ca_pem = base::string_at(*d, "/" + base::pointer_token(op::kSecretCa));
    if (cfg.tls.ca_pem.empty()) {
      return base::make_error(base::ErrorKind::Failed, "the server Secret has no ca.crt",
                             kube::resources::secrets.describe(ns, server_secret));
    }
    if (client_secret.empty() && o.cert.empty()) {
      // The Go plugin's fallback identity: the server's own keypair, which
      // carries the clientAuth usage (docs/rules.md#tls-material).
      cfg.tls.cert_pem = base::string_at(*d, "/" + base::pointer_token(op::kSecretCert));
      cfg.tls.key_pem = base::string_at(*d, "/" + base::pointer_token(op::kSecretKey));
    }
  }
  if (!client_secret.empty() && o.cert.empty()) {
    auto d = secret_data(kube, ns, client_secret);
    if (!d) return std::move(d).error();
    cfg.tls.cert_pem = base::string_at(*d, "/" + base::pointer_token(op::kSecretCert));
    cfg.tls.key_pem = base::string_at(*d, "/" + base::pointer_token(op::kSecretKey));
    if (cfg.tls.cert_pem.empty() || cfg.tls.key_pem.empty()) {
      return base::make_error(base::ErrorKind::Failed, "the operator-client Secret lacks tls.crt or tls.key",
                             kube::resources::secrets.describe(ns, client_secret));
    }
  }
  // PEM read from a Secret is judged here, where the Secret is known: the
  // client's own check later names only the key, with the flags' code 128
  // (docs/rules.md#typed-reads: a malformed object is 1, named).
  if (o.cacert.empty() || o.cert.empty()) {
    etcd::TlsConfig from_secrets;
    if (o.cacert.empty()) from_secrets.ca_pem = cfg.tls.ca_pem;
    if (o.cert.empty()) {
      from_secrets.cert_pem = cfg.tls.cert_pem;
      from_secrets.key_pem = cfg.tls.key_pem;
    }
    if (auto m = etcd::load_tls(from_secrets); !m) {
      base::Error e = std::move(m).error();
      const bool ca = e.object.find(std::string(op::kSecretCa)) != std::string::npos;
      const std::string& secret = ca || client_secret.empty() ? server_secret : client_secret;
      e.kind = base::ErrorKind::Failed;
      e.message = "key " + e.object.substr(e.object.rfind(' ') + 1) + ": " + e.message;
      e.object = kube::resources::secrets.describe(ns, secret);
      e.hint = "the operator's Secret must hold PEM (kubectl -n " + ns + " get secret " + secret + " -o yaml)";
      return e;
    }
  }
  return {};
}

base::Status apply_credentials(kube::Client* kube, const TargetOptions& o, const json& cluster, etcd::Config& cfg) {
  if (!o.user.empty()) {
    auto colon = o.user.find(':');
    cfg.user = o.user.substr(0, colon);
    cfg.password = o.user.substr(colon + 1);
    return {};
  }
  std::string ns = o.ns;
  std::string name;
  if (!o.credentials_secret.empty()) {
    auto slash = o.credentials_secret.find('/');
    if (slash != std::string::npos) {
      ns = o.credentials_secret.substr(0, slash);
      name = o.credentials_secret.substr(slash + 1);
    } else {
      name = o.credentials_secret;
    }
  } else if (!cluster.is_null() && base::bool_at(cluster, "/spec/auth/enabled")) {
    // Used whether or not status.authEnabled is latched yet: while etcd has
    // auth off, the client goes on without a token.
    name = base::string_at(cluster, "/spec/auth/rootCredentialsSecretRef/name");
  }
  if (name.empty()) return {};
  if (kube == nullptr) {
    return base::make_error(base::ErrorKind::Usage, "--credentials-secret needs the Kubernetes API");
  }
  auto d = secret_data(*kube, ns, name);
  if (!d) return std::move(d).error();
  std::string pw = base::string_at(*d, "/" + base::pointer_token(op::kSecretPassword));
  if (pw.empty()) {
    return base::make_error(base::ErrorKind::Failed, "missing a non-empty \"password\" key",
                           kube::resources::secrets.describe(ns, name));
  }
  // The etcd user of the operator's clusters is always root (docs/rules.md#authentication).
  cfg.user = cluster.is_null() ? base::string_at(*d, "/" + base::pointer_token(op::kSecretUsername))
                                : std::string(op::kRootUser);
  if (cfg.user.empty()) cfg.user = op::kRootUser;
  cfg.password = pw;
  return {};
}

}  // namespace

base::Result<Target> resolve(const TargetOptions& o, kube::Client* kube) {
  Target t;
  t.ns = o.ns;
  t.pod = o.pod;
  etcd::Config& cfg = t.config;
  cfg.dial_timeout = o.dial_timeout;
  cfg.call_timeout = o.command_timeout;
  cfg.tls.ca_file = o.cacert;
  cfg.tls.cert_file = o.cert;
  cfg.tls.key_file = o.key;
  cfg.tls.server_name = o.tls_server_name;
  cfg.tls.insecure_skip_verify = o.insecure_skip_tls_verify;

  if (!o.endpoints.empty()) {
    for (const auto& e : o.endpoints) {
      MemberTarget m;
      m.endpoint = e;
      m.pod_ready = true;
      t.members.push_back(m);
    }
    cfg.endpoints = o.endpoints;
    if (auto st = apply_credentials(kube, o, json(), cfg); !st) return std::move(st).error();
    return t;
  }
  if (kube == nullptr) return base::make_error(base::ErrorKind::Usage, "a cluster target needs the Kubernetes API");

  t.cluster = o.cluster;
  if (t.cluster.empty()) {
    auto pod = kube->get(kube::resources::pods, o.ns, o.pod);
    if (!pod) return std::move(pod).error();
    t.cluster = base::string_at(*pod, "/metadata/labels/" + base::pointer_token(op::kLabelCluster));
    if (t.cluster.empty()) {
      return base::make_error(base::ErrorKind::NotFound, "the pod carries no " + std::string(op::kLabelCluster) + " label",
                             kube::resources::pods.describe(o.ns, o.pod), "name the cluster with -c");
    }
  }
  auto cluster = kube->get(op::resources::etcdclusters, o.ns, t.cluster);
  if (!cluster) return std::move(cluster).error();
  t.cluster_object = std::move(cluster.value());
  kube::ListOptions lo;
  lo.label_selector = std::string(op::kLabelCluster) + "=" + t.cluster;
  auto members = kube->list_all(op::resources::etcdmembers, o.ns, lo);
  if (!members) return std::move(members).error();
  auto pods = kube->list_all(kube::resources::pods, o.ns, lo);
  if (!pods) return std::move(pods).error();
  t.member_objects = base::array_at(*members, "/items");
  t.pod_objects = base::array_at(*pods, "/items");
  t.members = member_targets(t.cluster_object, t.member_objects, t.pod_objects);
  if (o.connect == "port-forward") {
    // Only a running pod can be forwarded to; say so rather than time out.
    std::map<std::string, std::string> phase;
    for (const auto& p : t.pod_objects) phase[base::string_at(p, "/metadata/name")] = base::string_at(p, "/status/phase");
    for (auto& m : t.members) {
      if (m.endpoint.empty() || phase[m.name] == "Running") continue;
      m.problem = "pod \"" + m.name + "\" is not running (phase " + (phase[m.name].empty() ? "unknown" : phase[m.name]) + ")";
      m.endpoint.clear();
    }
  }
  if (!o.pod.empty()) {
    bool found = false;
    for (const auto& m : t.members) found = found || m.name == o.pod;
    if (!found) {
      return base::make_error(base::ErrorKind::NotFound, "no EtcdMember of cluster \"" + t.cluster + "\" has this pod",
                             kube::resources::pods.describe(o.ns, o.pod));
    }
  }
  t.operator_state = operator_state(
      *kube, o.operator_deployment.empty() ? std::string(op::kDefaultNewController) : o.operator_deployment, o.ns);
  cfg.endpoints = cluster_endpoints(t.members);
  for (const auto& m : t.members) {
    if (!m.endpoint.empty() && o.tls_server_name.empty()) cfg.tls.server_names[m.endpoint] = m.server_name;
  }
  if (cfg.endpoints.empty()) {
    auto e = base::make_error(base::ErrorKind::CannotConnect, "no member of the cluster can be dialled",
                             op::resources::etcdclusters.describe(o.ns, t.cluster));
    for (const auto& m : t.members) e.causes.push_back(m.name + ": " + m.problem);
    return e;
  }
  if (auto st = apply_cluster_tls(*kube, o, t.cluster_object, cfg); !st) return std::move(st).error();
  if (auto st = apply_credentials(kube, o, t.cluster_object, cfg); !st) return std::move(st).error();
  if (o.connect == "port-forward") {
    std::map<std::string, std::string> pod_by_url;
    for (const auto& m : t.members) {
      if (!m.endpoint.empty()) pod_by_url[m.endpoint] = m.name;
    }
    t.forwards = std::make_shared<kube::PortForwards>(kube->shared_transport());
    cfg.dial = kube::PortForwards::dialer(t.forwards, o.ns, std::move(pod_by_url),
                                          static_cast<std::uint16_t>(op::kClientPort));
    // The first forward now: a refusal by RBAC concerns every pod, so it is
    // the command's error (exit 7), not one per member. Other failures stay
    // per member; the forward is kept for the calls either way.
    auto first = cfg.dial(cfg.endpoints.front());
    if (!first && first.error().kind == base::ErrorKind::PermissionDenied) return std::move(first).error();
  }
  return t;
}

etcd::Config member_config(const Target& target, const MemberTarget& m) {
  etcd::Config cfg = target.config;
  cfg.endpoints = {m.endpoint};
  if (cfg.tls.server_name.empty() && !m.server_name.empty()) cfg.tls.server_names[m.endpoint] = m.server_name;
  if (target.forwards && !m.name.empty()) {
    cfg.dial = kube::PortForwards::dialer(target.forwards, target.ns, {{m.endpoint, m.name}},
                                          static_cast<std::uint16_t>(op::kClientPort));
  }
  return cfg;
}

}  // namespace admin
