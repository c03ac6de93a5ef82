#include "admin/support_bundle.h"

#include <optional>
#include <set>

#include "admin/bundle_redact.h"
#include "admin/certs.h"
#include "admin/check.h"
#include "admin/health.h"
#include "admin/maintenance.h"
#include "admin/operator_scale.h"
#include "admin/status.h"
#include "base/json_at.h"
#include "base/rfc3339.h"
#include "etcd/cert_info.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "kube/status_error.h"
#include "operator/legacy_cluster.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"
#include "output/yaml_emit.h"

namespace admin {

namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

class Collector {
 public:
  Collector(kube::Client& kube, const BundleRequest& r, const std::function<void(const std::string&)>& progress)
      : kube_(kube), r_(r), progress_(progress) {}

  Bundle bundle;
  std::vector<std::string> values;  // the namespace's Secret values, for redact()

  void say(const std::string& what) {
    if (progress_) progress_(what);
  }
  void error(const std::string& where, const base::Error& e) { error(where, e.one_line()); }
  void error(const std::string& where, const std::string& e) { bundle.errors.push_back(where + ": " + e); }

  void yaml(const std::string& path, const json& object) {
    bundle.files.push_back({path, output::to_yaml(ojson::parse(redact(object, values).dump()))});
  }
  void json_file(const std::string& path, const ojson& doc) {
    // Documents of the library carry no Secret values; redact() all the same.
    bundle.files.push_back({path, ojson::parse(redact(json::parse(doc.dump()), values).dump()).dump(2) + "\n"});
  }

  // An object by name: written when it exists, nothing when it does not.
  std::optional<json> one(const std::string& path, const kube::Resource& res, const std::string& ns,
                          const std::string& name) {
    auto o = kube_.get(res, ns, name);
    if (!o) {
      if (!kube::is_not_found(o.error())) error(path, o.error());
      return std::nullopt;
    }
    yaml(path, *o);
    return std::move(o.value());
  }
  // A list: written with its items (an empty list too).
  json many(const std::string& path, const kube::Resource& res, const std::string& ns, const std::string& selector) {
    kube::ListOptions lo;
    lo.label_selector = selector;
    auto l = kube_.list_all(res, ns, lo);
    if (!l) {
      error(path, l.error());
      return json::array();
    }
    json items = base::array_at(*l, "/items");
    json list = {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}};
    yaml(path, list);
    return items;
  }

  kube::Client& kube_;
  const BundleRequest& r_;
  const std::function<void(const std::string&)>& progress_;
};

}  // namespace

base::Result<Bundle> collect_bundle(kube::Client& kube, Session* session, const std::string& session_error,
                                    const BundleRequest& r, const std::function<void(const std::string&)>& progress) {
  Collector c(kube, r, progress);
  const std::string& ns = r.ns;
  const std::string& name = r.cluster;
  c.bundle.root = "etcd-report-" + ns + "-" + name + "-" + base::format_utc_stamp(r.now);

  c.say("reading EtcdCluster " + ns + "/" + name);
  auto native = kube.get(op::resources::etcdclusters, ns, name);
  if (!native && !kube::is_not_found(native.error())) return std::move(native).error();
  auto legacy = kube.get(op::resources::legacy_etcdclusters, ns, name);
  if (!legacy && !kube::is_not_found(legacy.error())) c.error("legacy/etcdcluster.yaml", legacy.error());
  if (!native && !legacy) {
    return base::make_error(base::ErrorKind::NotFound, "not found (neither " + std::string(op::kApiVersion) + " nor " +
                                                           std::string(op::kLegacyApiVersion) + ")",
                            "EtcdCluster " + ns + "/" + name, "check -n and -c");
  }

  // The Secrets first: their values are what every later file is cleaned
  // of. Without them no file could be promised clean, so this failure stops
  // the bundle before anything is written, unlike every later one.
  c.say("listing Secrets (names and keys only)");
  {
    auto l = kube.list_all(kube::resources::secrets, ns, {});
    if (!l) {
      auto e = std::move(l).error();
      e.hint = "the bundle is cleaned of the namespace's Secret values, so report must list them: bind "
               "etcd-operator-cli:kubectl-etcd-report (packaging/rbac/) in " + ns;
      return e;
    }
    json summaries = json::array();
    c.values = secret_values(base::array_at(*l, "/items"));
    for (const auto& s : base::array_at(*l, "/items")) summaries.push_back(secret_summary(s));
    c.yaml("kube/secrets.yaml", {{"apiVersion", "v1"}, {"kind", "List"}, {"items", summaries}});
  }

  std::set<std::string> services = {name, op::native_client_service(name)};
  json members = json::array();
  if (native) {
    c.yaml("kube/etcdcluster.yaml", *native);
    c.say("listing EtcdMembers, Pods and PVCs");
    const std::string selector = std::string(op::kLabelCluster) + "=" + name;
    members = c.many("kube/etcdmembers.yaml", op::resources::etcdmembers, ns, selector);
    c.many("kube/pods.yaml", kube::resources::pods, ns, selector);
    json pvcs = json::array();
    for (const auto& m : members) {
      const std::string member = base::string_at(m, "/metadata/name");
      auto p = kube.get(kube::resources::persistentvolumeclaims, ns, op::member_pvc(member));
      if (p) pvcs.push_back(*p);
      else if (!kube::is_not_found(p.error())) c.error("kube/pvcs.yaml", p.error());
      const std::string hl = op::annotation(m, op::kAnnHeadlessServiceName);
      if (!hl.empty()) services.insert(hl);
    }
    c.yaml("kube/pvcs.yaml", {{"apiVersion", "v1"}, {"kind", "List"}, {"items", pvcs}});
    c.one("kube/pdb.yaml", kube::resources::poddisruptionbudgets, ns, name);
  }
  if (legacy) {
    c.say("reading the legacy objects");
    c.yaml("legacy/etcdcluster.yaml", *legacy);
    const op::LegacyCluster l = op::LegacyCluster::from(*legacy);
    services.insert(l.headless_service());
    services.insert(l.client_service());
    c.one("legacy/statefulset.yaml", kube::resources::statefulsets, ns, name);
    c.many("legacy/pods.yaml", kube::resources::pods, ns, op::legacy_selector(name));
    c.one("legacy/cluster-state.yaml", kube::resources::configmaps, ns, op::legacy_cluster_state_configmap(name));
    if (!native) {
      auto pdb = c.one("legacy/pdb.yaml", kube::resources::poddisruptionbudgets, ns, name);
      (void)pdb;
    }
  }
  c.say("reading Services and events");
  {
    json items = json::array();
    for (const auto& s : services) {
      auto o = kube.get(kube::resources::services, ns, s);
      if (o) items.push_back(*o);
      else if (!kube::is_not_found(o.error())) c.error("kube/services.yaml", o.error());
    }
    c.yaml("kube/services.yaml", {{"apiVersion", "v1"}, {"kind", "List"}, {"items", items}});
  }
  c.many("kube/events.yaml", kube::resources::events, ns, "");

  // An absent operator is a fact for the reader (summary.json), not a failure.
  c.say("reading the operator's Deployment and Lease");
  auto [op_ns, op_name] = operator_coords(r.operator_deployment);
  const bool op_deployment = c.one("operator/deployment.yaml", kube::resources::deployments, op_ns, op_name).has_value();
  const bool op_lease =
      c.one("operator/lease.yaml", kube::resources::leases, op_ns, std::string(op::kOperatorLease)).has_value();

  c.say("judging the certificates");
  {
    CertsRequest cr{ns, name, r.now};
    auto certs = certificate_report(kube, cr);
    if (certs) c.json_file("certs.json", certs_document(*certs));
    else c.error("certs.json", certs.error());
  }

  if (session == nullptr) {
    for (const char* f : {"etcd/status.json", "etcd/health.json", "etcd/members.json", "etcd/check.json",
                          "etcd/alarms.json"}) {
      c.error(f, session_error.empty() ? "no etcd session" : session_error);
    }
  } else {
    c.say("asking etcd: status");
    auto status = cluster_status(*session);
    c.json_file("etcd/status.json", status_document(status));
    if (status_exit_code(status) != 0) {
      c.error("etcd/status.json", std::to_string(status.unreachable) + " member(s) did not answer");
    }
    c.say("asking etcd: health");
    auto health = check_health(*session, false);
    c.json_file("etcd/health.json", health_document(health));
    if (health_exit_code(health) == 2) c.error("etcd/health.json", "no member answered");
    c.say("asking etcd: member list");
    auto list = member_list(*session, true);
    if (list) c.json_file("etcd/members.json", member_list_document(*list));
    else c.error("etcd/members.json", list.error());
    c.say("asking etcd: consistency check");
    if (session->target.from_cluster()) {
      auto findings = gather_findings(session->target, *session->etcd);
      if (findings) c.json_file("etcd/check.json", check_document(*findings));
      else c.error("etcd/check.json", findings.error());
    }
    c.say("asking etcd: alarms");
    auto alarms = alarm_list(*session);
    if (alarms) c.json_file("etcd/alarms.json", alarm_document(*alarms, false));
    else c.error("etcd/alarms.json", alarms.error());
  }

  ojson summary;
  summary["cluster"] = name;
  summary["namespace"] = ns;
  summary["apiVersions"] = ojson::array();
  if (native) summary["apiVersions"].push_back(std::string(op::kApiVersion));
  if (legacy) summary["apiVersions"].push_back(std::string(op::kLegacyApiVersion));
  summary["createdAt"] = base::format_rfc3339(r.now);
  summary["tool"] = r.tool_version;
  summary["operator"] = {{"deployment", op_ns + "/" + op_name},
                         {"deploymentFound", op_deployment},
                         {"lease", op_ns + "/" + std::string(op::kOperatorLease)},
                         {"leaseFound", op_lease}};
  summary["complete"] = c.bundle.errors.empty();
  summary["errors"] = c.bundle.errors;
  ojson files = ojson::array();
  for (const auto& f : c.bundle.files) files.push_back(f.path);
  files.push_back("summary.json");
  summary["files"] = files;
  c.json_file("summary.json", summary);
  return std::move(c.bundle);
}

int bundle_exit_code(const Bundle& b) { return b.errors.empty() ? 0 : 5; }

}  // namespace admin
