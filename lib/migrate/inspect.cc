#include "migrate/inspect.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>

#include "admin/certs.h"
#include "base/json_at.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/base64.h"
#include "kube/conditions.h"
#include "operator/names.h"

namespace migrate {

using json = nlohmann::json;

namespace {

// A key of a Secret's data, decoded; "" when absent.
std::string secret_key(const json& secret, const std::string& key) {
  const json* data = base::find_at(secret, "/data");
  if (data == nullptr || !data->is_object() || !data->contains(key) || !(*data)[key].is_string()) return {};
  auto decoded = kube::base64_decode((*data)[key].get<std::string>());
  return decoded ? *decoded : std::string();
}

bool looks_like_pem_cert(const std::string& s) { return s.find("-----BEGIN CERTIFICATE-----") != std::string::npos; }

base::Error secret_error(const std::string& ns, const std::string& name, const std::string& what) {
  return base::make_error(base::ErrorKind::Failed, what, "secret \"" + ns + "/" + name + "\"");
}

// A TLS verification failure is worth one retry with the Service's name (docs/rules.md#legacy-tls-material).
bool tls_name_problem(const base::Error& e) {
  std::string text = e.one_line();
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* needle : {"ssl", "certificate", "handshake", "peer name", "tls"}) {
    if (text.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

base::Result<etcd::TlsConfig> legacy_tls(kube::Client& client, const op::LegacyCluster& legacy) {
  kube::ReadOnce secrets(client, kube::resources::secrets, legacy.ns);
  return legacy_tls(secrets, legacy);
}

base::Result<etcd::TlsConfig> legacy_tls(kube::ReadOnce& secrets, const op::LegacyCluster& legacy) {
  etcd::TlsConfig tls;
  const std::string server = legacy.tls_secret("serverSecret");
  if (server.empty()) return tls;
  const std::string ca_source = legacy.tls_secret("serverTrustedCASecret").empty()
                                    ? server
                                    : legacy.tls_secret("serverTrustedCASecret");
  auto ca_secret = secrets.get(ca_source);
  if (!ca_secret) return ca_secret.error();
  tls.ca_pem = secret_key(*ca_secret, "ca.crt");
  if (tls.ca_pem.empty() && secret_key(*ca_secret, "tls.key").empty()) {
    // docs/rules.md#legacy-tls-material: a CA-only Secret may carry its certificate as tls.crt alone.
    tls.ca_pem = secret_key(*ca_secret, "tls.crt");
  }
  if (tls.ca_pem.empty()) return secret_error(legacy.ns, ca_source, "has no ca.crt (the CA etcd's server certificate is signed by)");
  if (!looks_like_pem_cert(tls.ca_pem)) return secret_error(legacy.ns, ca_source, "ca.crt is not a PEM certificate");
  const std::string client_secret = legacy.tls_secret("clientSecret");
  if (!client_secret.empty()) {
    auto cs = secrets.get(client_secret);
    if (!cs) return cs.error();
    tls.cert_pem = secret_key(*cs, "tls.crt");
    tls.key_pem = secret_key(*cs, "tls.key");
    if (tls.cert_pem.empty() || tls.key_pem.empty()) {
      return secret_error(legacy.ns, client_secret, "needs non-empty tls.crt and tls.key (the operator's client certificate)");
    }
    if (!looks_like_pem_cert(tls.cert_pem)) return secret_error(legacy.ns, client_secret, "tls.crt is not a PEM certificate");
  }
  return tls;
}

std::vector<EtcdTarget> etcd_targets(const op::LegacyCluster& legacy, const Inventory& inventory,
                                     const etcd::TlsConfig& tls, const InspectOptions& options) {
  std::vector<EtcdTarget> out;
  for (const auto& pod : inventory.pods) {
    if (object_namespace(pod) != legacy.ns || !op::is_legacy_member_pod(legacy.name, object_name(pod))) continue;
    std::string name(object_name(pod));
    const json* labels = base::find_at(pod, "/metadata/labels");
    if (labels == nullptr || !labels->is_object() || base::string_at(*labels, "/" + base::pointer_token(op::kLabelInstance)) != legacy.name) {
      continue;
    }
    std::string ip = base::string_at(pod, "/status/podIP");
    if (ip.empty() || base::string_at(pod, "/status/phase") != "Running" || !kube::condition_true(pod, "Ready") ||
        base::find_at(pod, "/metadata/deletionTimestamp") != nullptr) {
      continue;
    }
    EtcdTarget t;
    t.pod = name;
    bool secure = !tls.ca_pem.empty();
    std::string host = ip.find(':') != std::string::npos ? "[" + ip + "]" : ip;
    t.config.endpoints = {(secure ? "https://" : "http://") + host + ":" + std::to_string(op::kClientPort)};
    t.config.tls = tls;
    if (secure) t.config.tls.server_name = op::member_dns(name, legacy.headless_service(), legacy.ns);
    t.config.dial_timeout = options.dial_timeout;
    t.config.call_timeout = options.call_timeout;
    out.push_back(std::move(t));
  }
  if (options.forwards) {
    // One dialer for every target, so that cluster_config's merged config
    // reaches each pod through its own forward.
    std::map<std::string, std::string> pod_by_url;
    for (const auto& t : out) pod_by_url[t.config.endpoints.front()] = t.pod;
    auto dial = kube::PortForwards::dialer(options.forwards, legacy.ns, std::move(pod_by_url),
                                           static_cast<std::uint16_t>(op::kClientPort));
    for (auto& t : out) t.config.dial = dial;
  }
  std::sort(out.begin(), out.end(), [](const EtcdTarget& a, const EtcdTarget& b) { return a.pod < b.pod; });
  return out;
}

namespace {

// MemberList and AuthStatus through one target; "" on success.
std::string ask_etcd(const EtcdTarget& target, ClusterFacts& facts) {
  auto client = etcd::Client::create(target.config);
  if (!client) return client.error().one_line();
  auto list = (*client)->member_list();
  if (!list) return list.error().one_line();
  auto auth = live_auth_enabled(**client);
  if (!auth) return auth.error().one_line();
  facts.cluster_id = etcd::format_member_id(list->header.cluster_id);
  facts.members.clear();
  for (const auto& m : list->members) {
    facts.members.push_back({m.name, etcd::format_member_id(m.id), m.peer_urls.empty() ? "" : m.peer_urls.front(),
                             m.is_learner});
  }
  facts.live_auth = *auth;
  return {};
}

}  // namespace

ClusterFacts inspect_cluster(kube::Client& client, const op::LegacyCluster& legacy, const Inventory& inventory,
                             const InspectOptions& options) {
  ClusterFacts facts;
  const std::string& ns = legacy.ns;
  for (const auto& pod : inventory.pods) {
    if (object_namespace(pod) != ns || !op::is_legacy_member_pod(legacy.name, object_name(pod))) continue;
    std::string name(object_name(pod));
    PodFact f;
    f.uid = base::string_at(pod, "/metadata/uid");
    f.running = base::string_at(pod, "/status/phase") == "Running";
    f.ready = kube::condition_true(pod, "Ready");
    f.deleting = base::find_at(pod, "/metadata/deletionTimestamp") != nullptr;
    facts.pods[name] = f;
  }
  if (const json* c = find_object(inventory.new_clusters, ns, legacy.name)) facts.new_cluster = *c;
  if (const json* s = find_object(inventory.services, ns, legacy.name)) facts.service_c = *s;
  if (legacy.client_service() != legacy.name) {
    if (const json* s = find_object(inventory.services, ns, legacy.client_service())) facts.service_cs = *s;
  }

  if (!options.auth_secret.empty()) {
    auto secret = client.get(kube::resources::secrets, ns, options.auth_secret);
    if (!secret) {
      facts.auth_secret = ClusterFacts::AuthSecret::Missing;
    } else {
      facts.auth_secret = secret_key(*secret, "password").empty() ? ClusterFacts::AuthSecret::NoPassword
                                                                  : ClusterFacts::AuthSecret::Usable;
    }
  } else if (legacy.enable_auth()) {
    auto secret = client.get(kube::resources::secrets, ns, op::root_credentials_secret(legacy.name));
    facts.root_secret_exists = secret.ok();
  }

  // The TLS Secrets are read once, for dialling and for the certificates' verdicts.
  kube::ReadOnce secrets(client, kube::resources::secrets, ns);
  auto tls = legacy_tls(secrets, legacy);
  if (tls) {
    // Only this cluster's member Pods: a copy of the namespace's for each
    // cluster made a fleet's planning grow with its square.
    nlohmann::json pods = nlohmann::json::array();
    for (const auto& pod : inventory.pods) {
      if (object_namespace(pod) == ns && op::is_legacy_member_pod(legacy.name, object_name(pod))) {
        pods.push_back(pod);
      }
    }
    auto certs = admin::judge_legacy_certificates(
        secrets, legacy, pods, std::chrono::system_clock::to_time_t(std::chrono::system_clock::now()));
    if (certs) facts.certificates = std::move(certs.value());
    else facts.certificates_error = certs.error().one_line();
  }
  if (tls) {
    for (const char* field : {"serverSecret", "peerSecret", "serverTrustedCASecret", "clientTrustedCASecret",
                              "peerTrustedCASecret"}) {
      const std::string name = legacy.tls_secret(field);
      if (name.empty() || facts.secret_cas.count(name)) continue;
      auto secret = secrets.get(name);
      if (!secret) continue;  // unknown: the verdicts advise as before
      std::string ca = secret_key(*secret, "ca.crt");
      // docs/rules.md#legacy-tls-material: a CA-only Secret may carry its certificate as tls.crt alone.
      if (ca.empty() && std::string(field).find("Trusted") != std::string::npos && secret_key(*secret, "tls.key").empty()) {
        ca = secret_key(*secret, "tls.crt");
      }
      facts.secret_cas[name] = ca;
    }
  }
  if (!tls) {
    facts.inspect_error = "TLS material: " + tls.error().one_line();
  } else {
    facts.tls = *tls;
    auto targets = etcd_targets(legacy, inventory, *tls, options);
    if (targets.empty()) {
      facts.inspect_error = "no Running and Ready member pod (" + legacy.name + "-<n>) with an IP";
    }
    std::string errors;
    for (auto& target : targets) {
      std::string err = ask_etcd(target, facts);
      if (!err.empty() && !tls->ca_pem.empty() && tls_name_problem(base::make_error(base::ErrorKind::Failed, err))) {
        // docs/rules.md#legacy-tls-material: the server certificate may name only the Service.
        EtcdTarget by_service = target;
        by_service.config.tls.server_name = op::service_dns(legacy.client_service(), ns);
        if (ask_etcd(by_service, facts).empty()) err.clear();
      }
      if (err.empty()) {
        facts.inspect_error.reset();
        errors.clear();
        break;
      }
      errors += (errors.empty() ? "" : "; ") + target.pod + ": " + err;
      facts.inspect_error = errors;
    }
  }
  for (const auto& m : facts.members) {
    if (m.name.empty()) continue;
    if (const json* nm = find_object(inventory.new_members, ns, m.name)) facts.new_members[m.name] = *nm;
    PvcFact p;
    if (const json* pvc = find_object(inventory.pvcs, ns, op::member_pvc(m.name))) {
      p.found = true;
      p.volume_name = base::string_at(*pvc, "/spec/volumeName");
      if (const json* refs = base::find_at(*pvc, "/metadata/ownerReferences"); refs && refs->is_array()) {
        for (const auto& r : *refs) {
          if (base::bool_at(r, "/controller")) {
            p.controller_kind = base::string_at(r, "/kind");
            p.controller_name = base::string_at(r, "/name");
          }
        }
      }
    }
    facts.pvcs[m.name] = p;
  }
  // EtcdMembers of this cluster that etcd no longer knows are someone
  // else's business too (docs/rules.md#only-our-own-objects): report them as well.
  for (const auto& nm : inventory.new_members) {
    if (base::string_at(nm, "/metadata/namespace") != ns) continue;
    std::string name = base::string_at(nm, "/metadata/name");
    if (base::string_at(nm, "/spec/clusterName") == legacy.name && facts.new_members.count(name) == 0) {
      facts.new_members[name] = nm;
    }
  }
  return facts;
}

}  // namespace migrate

namespace migrate {

base::Result<bool> live_auth_enabled(etcd::Client& c) {
  auto auth = c.auth_status();
  if (auth) return auth;
  const base::Error& e = auth.error();
  // etcd 3.4 has no AuthStatus (gRPC UNIMPLEMENTED, "unknown method").
  if (e.status != 12 && e.one_line().find("unknown method") == std::string::npos) return auth;
  // A login that cannot succeed tells the two states apart without changing
  // anything: "not enabled" versus "authentication failed".
  auto probe = c.authenticate("root", "\x01-etcd-migrate-probe");
  if (!probe && probe.error().reason == etcd::reason::kAuthNotEnabled) return false;
  if (!probe && probe.error().reason == etcd::reason::kAuthFailed) return true;
  if (!probe && etcd::is_plaintext_credentials(probe.error())) {
    // No password goes over plaintext, and plaintext carries no client
    // certificate: an anonymous user read succeeds only with auth off.
    auto user = c.user_get("root");
    if (user || user.error().reason == etcd::reason::kUserNotFound) return false;
    std::string text = user.error().one_line();
    if (user.error().kind == base::ErrorKind::PermissionDenied || text.find("user name is empty") != std::string::npos ||
        text.find("permission denied") != std::string::npos) {
      return true;
    }
    return user.error();
  }
  return auth;
}

etcd::Config cluster_config(const std::vector<EtcdTarget>& targets) {
  etcd::Config config;
  if (targets.empty()) return config;
  config = targets.front().config;
  config.endpoints.clear();
  config.tls.server_name.clear();
  for (const auto& t : targets) {
    const std::string& ep = t.config.endpoints.front();
    config.endpoints.push_back(ep);
    if (!t.config.tls.server_name.empty()) config.tls.server_names[ep] = t.config.tls.server_name;
  }
  return config;
}

}  // namespace migrate
