#include "admin/member_render.h"

#include <algorithm>

#include "admin/member_object.h"
#include "base/json_at.h"
#include "operator/meta.h"
#include "operator/names.h"

namespace admin {

using json = nlohmann::json;

namespace {

std::string first_label(const std::string& url) {
  auto p = url.find("://");
  std::string host = p == std::string::npos ? url : url.substr(p + 3);
  auto end = host.find_first_of(".:/");
  return end == std::string::npos ? host : host.substr(0, end);
}

}  // namespace

std::string initial_cluster(const std::vector<etcd::Member>& members) {
  std::vector<std::string> parts;
  for (const auto& m : members) {
    if (m.peer_urls.empty()) continue;
    std::string name = m.name.empty() ? first_label(m.peer_urls.front()) : m.name;
    parts.push_back(name + "=" + m.peer_urls.front());
  }
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

std::vector<std::string> member_secrets(const json& cluster) {
  std::vector<std::string> out;
  std::string c = name_of(cluster);
  if (cluster.contains("/spec/tls/client"_json_pointer)) {
    auto s = base::string_at(cluster, "/spec/tls/client/serverSecretRef/name");
    out.push_back(s.empty() ? op::cert_manager_server_secret(c) : s);
  }
  if (cluster.contains("/spec/tls/peer"_json_pointer)) {
    auto s = base::string_at(cluster, "/spec/tls/peer/secretRef/name");
    out.push_back(s.empty() ? op::cert_manager_peer_secret(c) : s);
  }
  return out;
}

namespace {

json strip_reserved(const json& m) {
  json out = json::object();
  if (!m.is_object()) return out;
  for (const auto& [k, v] : m.items()) {
    if (k.rfind(std::string(op::kReservedPrefix), 0) != 0) out[k] = v;
  }
  return out;
}

}  // namespace

json new_member(const json& cluster) {
  const std::string c = name_of(cluster);
  const json& observed = base::object_at(cluster, "/status/observed");
  json labels = json(op::cluster_labels(c));
  json meta_labels = strip_reserved(observed.contains("/additionalMetadata/labels"_json_pointer)
                                        ? observed["additionalMetadata"]["labels"] : json::object());
  for (const auto& [k, v] : meta_labels.items()) {
    if (!labels.contains(k)) labels[k] = v;
  }
  json body = {{"apiVersion", std::string(op::kApiVersion)},
               {"kind", std::string(op::kKindEtcdMember)},
               {"metadata",
                {{"generateName", c + "-"},
                 {"namespace", base::string_at(cluster, "/metadata/namespace")},
                 {"labels", labels},
                 {"finalizers", json::array({std::string(op::kMemberFinalizer)})},
                 {"ownerReferences",
                  json::array({json(op::owner_reference(op::kKindEtcdCluster, c,
                                                        base::string_at(cluster, "/metadata/uid"), true))})}}}};
  json anns = strip_reserved(observed.contains("/additionalMetadata/annotations"_json_pointer)
                                 ? observed["additionalMetadata"]["annotations"] : json::object());
  if (!anns.empty()) body["metadata"]["annotations"] = anns;
  json spec = {{"clusterName", c}, {"initialCluster", ""},
               {"clusterToken", base::string_at(cluster, "/status/clusterToken")}};
  for (const char* k : {"version", "storage", "resources", "additionalMetadata", "affinity",
                        "topologySpreadConstraints", "options", "imagePullSecrets"}) {
    if (observed.contains(k) && !observed[k].is_null()) spec[k] = observed[k];
  }
  json tls = json::object();
  if (base::find_at(cluster, "/spec/tls/client") != nullptr) {
    const json& client = base::object_at(cluster, "/spec/tls/client");
    auto server = base::string_at(client, "/serverSecretRef/name");
    tls["clientServerSecretRef"] = {{"name", server.empty() ? op::cert_manager_server_secret(c) : server}};
    bool mtls = client.contains("operatorClientSecretRef") ||
                client.contains("/certManager/operatorClientIssuerRef"_json_pointer);
    if (mtls) tls["clientMTLS"] = true;
  }
  if (cluster.contains("/spec/tls/peer"_json_pointer)) {
    auto peer = base::string_at(cluster, "/spec/tls/peer/secretRef/name");
    tls["peerSecretRef"] = {{"name", peer.empty() ? op::cert_manager_peer_secret(c) : peer}};
  } else if (op::annotation(cluster, op::kAnnPeerAutoTls) == "true") {
    tls["peerAutoTLS"] = true;
  }
  if (!tls.empty()) spec["tls"] = tls;
  body["spec"] = spec;
  return body;
}

std::string image_repository(const json& deployment, const json& pods) {
  {
    for (const auto& c : base::array_at(deployment, "/spec/template/spec/containers")) {
      for (const auto& e : base::array_at(c, "/env")) {
        if (base::string_at(e, "/name") == "ETCD_IMAGE_REPOSITORY" && !base::string_at(e, "/value").empty()) return base::string_at(e, "/value");
      }
      for (const char* key : {"args", "command"}) {
        for (const auto& a : base::array_at(c, "/" + base::pointer_token(key))) {
          std::string s = a.is_string() ? a.get<std::string>() : "";
          const std::string flag = "--etcd-image-repository=";
          if (s.rfind(flag, 0) == 0 && s.size() > flag.size()) return s.substr(flag.size());
        }
      }
    }
  }
  for (const auto& p : pods) {
    std::string image = base::string_at(p, "/spec/containers/0/image");
    if (image.empty()) continue;
    auto at = image.find('@');
    if (at != std::string::npos) image = image.substr(0, at);
    auto colon = image.rfind(':');
    auto slash = image.rfind('/');
    if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) image = image.substr(0, colon);
    if (!image.empty()) return image;
  }
  return "quay.io/coreos/etcd";
}

namespace {

json owner_of(const json& member) {
  return json(op::owner_reference(op::kKindEtcdMember, name_of(member), base::string_at(member, "/metadata/uid"),
                                  true));
}

json merged_labels(const json& base, const json& spec) {
  json labels = base;
  json extra = strip_reserved(spec.contains("/additionalMetadata/labels"_json_pointer)
                                  ? spec["additionalMetadata"]["labels"] : json::object());
  for (const auto& [k, v] : extra.items()) {
    if (!labels.contains(k)) labels[k] = v;
  }
  return labels;
}

}  // namespace

json render_pvc(const json& member) {
  const std::string m = name_of(member);
  const json& spec = base::object_at(member, "/spec");
  const std::string c = base::string_at(spec, "/clusterName");
  json pvc = {{"apiVersion", "v1"},
              {"kind", "PersistentVolumeClaim"},
              {"metadata",
               {{"name", op::member_pvc(m)},
                {"namespace", base::string_at(member, "/metadata/namespace")},
                {"labels", merged_labels(json(op::member_labels(c, m)), spec)},
                {"ownerReferences", json::array({owner_of(member)})}}},
              {"spec",
               {{"accessModes", json::array({"ReadWriteOnce"})},
                {"resources", {{"requests", {{"storage", base::string_at(spec, "/storage/size")}}}}}}}};
  json anns = strip_reserved(spec.contains("/additionalMetadata/annotations"_json_pointer)
                                 ? spec["additionalMetadata"]["annotations"] : json::object());
  if (!anns.empty()) pvc["metadata"]["annotations"] = anns;
  if (spec.contains("/storage/storageClassName"_json_pointer) && !spec["storage"]["storageClassName"].is_null()) {
    pvc["spec"]["storageClassName"] = spec["storage"]["storageClassName"];
  }
  return pvc;
}

json render_pod(const json& cluster, const json& member, const std::string& repo, const std::string& rendered_by) {
  const std::string m = name_of(member);
  const std::string ns = base::string_at(member, "/metadata/namespace");
  const json& spec = base::object_at(member, "/spec");
  const std::string c = base::string_at(spec, "/clusterName");
  std::string svc = op::annotation(member, op::kAnnHeadlessServiceName);
  if (svc.empty()) svc = c;
  const bool client_tls = spec.contains("/tls/clientServerSecretRef/name"_json_pointer);
  const bool mtls = base::bool_at(spec, "/tls/clientMTLS");
  const bool peer_secret = spec.contains("/tls/peerSecretRef/name"_json_pointer);
  const bool peer_auto = base::bool_at(spec, "/tls/peerAutoTLS");
  const std::string cs = client_tls ? "https" : "http";
  const std::string ps = (peer_secret || peer_auto) ? "https" : "http";
  const std::string dns = op::member_dns(m, svc, ns);
  std::string data_dir = "/var/lib/etcd";
  std::string sub = op::annotation(member, op::kAnnDataDirSubpath);
  bool sub_ok = !sub.empty() && sub != "." && sub != ".." && sub.find('/') == std::string::npos &&
                std::isalnum(static_cast<unsigned char>(sub[0])) &&
                std::all_of(sub.begin(), sub.end(), [](char ch) {
                  return std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '_' || ch == '-';
                });
  if (sub_ok) data_dir += "/" + sub;
  json cmd = json::array({"etcd", "--name=" + m, "--data-dir=" + data_dir, "--listen-peer-urls=" + ps + "://0.0.0.0:2380",
                          "--listen-client-urls=" + cs + "://0.0.0.0:2379",
                          "--advertise-client-urls=" + cs + "://" + dns + ":2379",
                          "--initial-advertise-peer-urls=" + ps + "://" + dns + ":2380",
                          "--initial-cluster=" + base::string_at(spec, "/initialCluster"),
                          "--initial-cluster-token=" + base::string_at(spec, "/clusterToken"),
                          "--initial-cluster-state=existing", "--listen-metrics-urls=http://0.0.0.0:2381"});
  if (spec.contains("options")) {
    const json& o = spec["options"];
    if (o.contains("quotaBackendBytes")) cmd.push_back("--quota-backend-bytes=" + o["quotaBackendBytes"].dump());
    if (o.contains("autoCompactionMode")) cmd.push_back("--auto-compaction-mode=" + base::string_at(o, "/autoCompactionMode"));
    if (o.contains("autoCompactionRetention")) {
      const json& r = o["autoCompactionRetention"];
      cmd.push_back("--auto-compaction-retention=" + (r.is_string() ? r.get<std::string>() : r.dump()));
    }
    if (o.contains("snapshotCount")) cmd.push_back("--snapshot-count=" + o["snapshotCount"].dump());
  }
  json mounts = json::array({{{"name", "data"}, {"mountPath", "/var/lib/etcd"}}});
  json volumes = json::array();
  if (in_memory(member)) {
    volumes.push_back(
        {{"name", "data"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", base::string_at(spec, "/storage/size")}}}});
  } else {
    volumes.push_back({{"name", "data"}, {"persistentVolumeClaim", {{"claimName", op::member_pvc(m)}}}});
  }
  if (client_tls) {
    cmd.push_back("--cert-file=/etc/etcd/tls/client/tls.crt");
    cmd.push_back("--key-file=/etc/etcd/tls/client/tls.key");
    if (mtls) {
      cmd.push_back("--client-cert-auth=true");
      cmd.push_back("--trusted-ca-file=/etc/etcd/tls/client/ca.crt");
    }
    mounts.push_back({{"name", "tls-client"}, {"mountPath", "/etc/etcd/tls/client"}, {"readOnly", true}});
    volumes.push_back({{"name", "tls-client"}, {"secret", {{"secretName", spec["tls"]["clientServerSecretRef"]["name"]}}}});
  }
  if (peer_secret) {
    for (const char* a : {"--peer-cert-file=/etc/etcd/tls/peer/tls.crt", "--peer-key-file=/etc/etcd/tls/peer/tls.key",
                          "--peer-trusted-ca-file=/etc/etcd/tls/peer/ca.crt", "--peer-client-cert-auth=true"}) {
      cmd.push_back(a);
    }
    mounts.push_back({{"name", "tls-peer"}, {"mountPath", "/etc/etcd/tls/peer"}, {"readOnly", true}});
    volumes.push_back({{"name", "tls-peer"}, {"secret", {{"secretName", spec["tls"]["peerSecretRef"]["name"]}}}});
  } else if (peer_auto) {
    cmd.push_back("--peer-auto-tls");
  }
  json resources = base::object_at(spec, "/resources");
  if (resources.empty()) resources = {{"requests", {{"cpu", "100m"}, {"memory", "128Mi"}}}};
  json container = {
      {"name", "etcd"},
      {"image", repo + ":v" + base::string_at(spec, "/version")},
      {"command", cmd},
      {"securityContext", {{"allowPrivilegeEscalation", false}, {"capabilities", {{"drop", json::array({"ALL"})}}}}},
      {"ports", json::array({{{"name", "client"}, {"containerPort", 2379}},
                             {{"name", "peer"}, {"containerPort", 2380}},
                             {{"name", "metrics"}, {"containerPort", 2381}}})},
      {"resources", resources},
      {"livenessProbe", {{"tcpSocket", {{"port", 2380}}}, {"initialDelaySeconds", 15}, {"periodSeconds", 10},
                         {"failureThreshold", 3}}},
      {"readinessProbe", {{"httpGet", {{"path", "/health"}, {"port", 2381}}}, {"initialDelaySeconds", 5},
                          {"periodSeconds", 5}, {"failureThreshold", 3}}},
      {"volumeMounts", mounts}};
  json anns = strip_reserved(spec.contains("/additionalMetadata/annotations"_json_pointer)
                                 ? spec["additionalMetadata"]["annotations"] : json::object());
  anns[std::string(op::kAnnRenderedBy)] = rendered_by;
  json pod_spec = {{"hostname", m},
                   {"subdomain", svc},
                   {"automountServiceAccountToken", false},
                   {"securityContext", {{"runAsNonRoot", true}, {"runAsUser", 65532}, {"runAsGroup", 65532},
                                        {"fsGroup", 65532}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
                   {"containers", json::array({container})},
                   {"volumes", volumes}};
  for (const char* k : {"affinity", "topologySpreadConstraints", "imagePullSecrets"}) {
    if (spec.contains(k) && !spec[k].is_null()) pod_spec[k] = spec[k];
  }
  (void)cluster;
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", m},
            {"namespace", ns},
            {"labels", merged_labels(json(op::member_labels(c, m)), spec)},
            {"annotations", anns},
            {"ownerReferences", json::array({owner_of(member)})}}},
          {"spec", pod_spec}};
}

}  // namespace admin
