#include "operator/names.h"

#include "base/rfc3339.h"

namespace op {

namespace {
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (auto p : parts) s.append(p);
  return s;
}
}  // namespace

std::string member_pvc(std::string_view member) { return cat({"data-", member}); }
std::string cluster_token(std::string_view c, std::string_view ns) { return cat({c, "-", ns}); }
std::string root_credentials_secret(std::string_view c) { return cat({c, "-root-credentials"}); }
std::string native_client_service(std::string_view c) { return cat({c, "-client"}); }
std::string legacy_cluster_state_configmap(std::string_view c) { return cat({c, "-cluster-state"}); }
std::string member_dns(std::string_view pod, std::string_view service, std::string_view ns) {
  return cat({pod, ".", service, ".", ns, ".svc"});
}
std::string cert_manager_server_secret(std::string_view c) { return cat({c, "-server-tls"}); }
std::string cert_manager_operator_client_secret(std::string_view c) { return cat({c, "-operator-client-tls"}); }
std::string cert_manager_peer_secret(std::string_view c) { return cat({c, "-peer-tls"}); }
std::string snapshot_cr_name(std::string_view c, std::chrono::system_clock::time_point t) {
  return cat({c, "-", base::format_utc_stamp(std::chrono::system_clock::to_time_t(t))});
}
std::string restore_object_key(std::string_view c) { return cat({c, "-restore.db"}); }
std::string defrag_cr_name(std::string_view c, std::chrono::system_clock::time_point t) {
  return snapshot_cr_name(cat({c, "-defrag"}), t);
}
std::string future_member_dns(std::string_view c, std::string_view ns) {
  return member_dns(cat({c, "-00000"}), c, ns);
}

std::string service_dns(std::string_view service, std::string_view ns) { return cat({service, ".", ns, ".svc"}); }

nlohmann::ordered_json legacy_labels(std::string_view c) {
  return {{std::string(kLabelName), std::string(kLabelNameValue)},
          {std::string(kLabelInstance), std::string(c)},
          {std::string(kLabelManagedBy), std::string(kLabelManagedByValue)}};
}

nlohmann::ordered_json cluster_labels(std::string_view c) {
  auto l = legacy_labels(c);
  l[std::string(kLabelCluster)] = std::string(c);
  return l;
}

nlohmann::ordered_json member_labels(std::string_view c, std::string_view m) {
  auto l = cluster_labels(c);
  l[std::string(kLabelComponent)] = std::string(m);
  return l;
}

std::string legacy_selector(std::string_view c) {
  return cat({kLabelName, "=", kLabelNameValue, ",", kLabelInstance, "=", c});
}

std::string snapshotter_name(std::string_view schedule) { return cat({schedule, "-snapshotter"}); }

bool is_legacy_member_pod(std::string_view c, std::string_view pod) {
  if (pod.size() <= c.size() + 1 || pod.substr(0, c.size()) != c || pod[c.size()] != '-') return false;
  for (char ch : pod.substr(c.size() + 1)) {
    if (ch < '0' || ch > '9') return false;
  }
  return true;
}

nlohmann::ordered_json native_headless_service(std::string_view c, std::string_view ns, std::string_view cluster_uid) {
  return {{"apiVersion", "v1"},
          {"kind", "Service"},
          {"metadata",
           {{"name", std::string(c)},
            {"namespace", std::string(ns)},
            {"labels", cluster_labels(c)},
            {"ownerReferences", nlohmann::ordered_json::array({owner_reference(kKindEtcdCluster, c, cluster_uid, true)})}}},
          {"spec",
           {{"clusterIP", "None"},
            {"publishNotReadyAddresses", true},
            {"selector", {{std::string(kLabelCluster), std::string(c)}}},
            {"ports", nlohmann::ordered_json::array({{{"name", "client"}, {"port", kClientPort}},
                                                     {{"name", "peer"}, {"port", kPeerPort}}})}}}};
}

nlohmann::ordered_json owner_reference(std::string_view kind, std::string_view name, std::string_view uid,
                                       bool controller) {
  return {{"apiVersion", std::string(kApiVersion)},
          {"kind", std::string(kind)},
          {"name", std::string(name)},
          {"uid", std::string(uid)},
          {"controller", controller},
          {"blockOwnerDeletion", controller}};
}

}  // namespace op
