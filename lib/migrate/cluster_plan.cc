#include "migrate/cluster_plan.h"

#include <algorithm>

#include "base/json_at.h"
#include "base/text.h"
#include "migrate/service_exposure.h"
#include "migrate/translate.h"
#include "operator/meta.h"
#include "operator/names.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

const char* action_name(ClusterAction a) {
  switch (a) {
    case ClusterAction::Adopt: return "Adopt";
    case ClusterAction::Error: return "Error";
    case ClusterAction::Adopted: return "Adopted";
    case ClusterAction::Ignored: return "Ignored";
  }
  return "Error";
}

ojson member_owner_reference(const std::string& cluster, const std::string& cluster_uid) {
  return op::owner_reference(op::kKindEtcdCluster, cluster, cluster_uid, true);
}

namespace {

// docs/rules.md#only-our-own-objects: an existing new-API EtcdCluster is ours only with our marker for this
// legacy UID and, once prefilled, the same cluster ID.
void check_existing(const op::LegacyCluster& legacy, const ClusterFacts& facts, ClusterPlan& plan) {
  bool cluster_ok = false;
  std::string cluster_uid;
  if (facts.new_cluster) {
    const json& nc = *facts.new_cluster;
    std::string marker = op::annotation(nc, op::kAnnAdoptedFrom);
    std::string id = base::string_at(nc, "/status/clusterID");
    cluster_uid = base::string_at(nc, "/metadata/uid");
    if (marker != legacy.uid) {
      plan.verdicts.push_back(
          {"B17", "an EtcdCluster " + base::quoted(legacy.name) + " of the new API already exists without this tool's marker " +
                      std::string(op::kAnnAdoptedFrom) + "=" + legacy.uid +
                      " (a native cluster or another adoption); refusing to adopt into it"});
    } else if (!id.empty() && !facts.cluster_id.empty() && id != facts.cluster_id) {
      plan.verdicts.push_back({"B17", "the existing EtcdCluster " + base::quoted(legacy.name) + " records cluster ID " + id +
                                          " but etcd reports " + facts.cluster_id + "; refusing to adopt into it"});
    } else {
      cluster_ok = true;
      plan.resume = true;
    }
  }
  for (const auto& [name, member] : facts.new_members) {
    const json* ctrl = op::controller_of(member);
    bool ours = cluster_ok && ctrl != nullptr && base::string_at(*ctrl, "/kind") == op::kKindEtcdCluster &&
                base::string_at(*ctrl, "/name") == legacy.name && base::string_at(*ctrl, "/uid") == cluster_uid;
    std::string id = base::string_at(member, "/status/memberID");
    std::string live_id;
    for (const auto& m : facts.members) {
      if (m.name == name) live_id = m.id;
    }
    if (!ours) {
      plan.verdicts.push_back({"B17", "an EtcdMember " + base::quoted(name) +
                                          " already exists and is not controlled by this tool's adopted EtcdCluster " +
                                          base::quoted(legacy.name) + "; refusing to take it over"});
    } else if (!id.empty() && !live_id.empty() && id != live_id) {
      plan.verdicts.push_back({"B17", "the existing EtcdMember " + base::quoted(name) + " records member ID " + id +
                                          " but etcd reports " + live_id + " for that name"});
    }
  }
}

// docs/rules.md#client-service-cutover: a Service named <c> other than the legacy client or headless Service,
// or than the native headless Service of an earlier run, is someone else's.
void check_service_c(const op::LegacyCluster& legacy, const ClusterFacts& facts, ClusterPlan& plan) {
  if (!facts.service_c || legacy.client_service() == legacy.name || legacy.headless_service() == legacy.name) return;
  const json& svc = *facts.service_c;
  const json* ctrl = op::controller_of(svc);
  bool native = base::string_at(svc, "/spec/clusterIP") == "None" && ctrl != nullptr &&
                base::string_at(*ctrl, "/kind") == op::kKindEtcdCluster && base::string_at(*ctrl, "/name") == legacy.name &&
                base::string_at(*ctrl, "/apiVersion") == op::kApiVersion;
  if (!native) {
    plan.verdicts.push_back({"B18", "a Service " + base::quoted(legacy.name) + " exists in namespace " + base::quoted(legacy.ns) +
                                        " that is neither the legacy client Service " + base::quoted(legacy.client_service()) +
                                        " nor the headless one; the new operator needs that name for its headless "
                                        "Service: rename or remove it"});
  }
}

// A legacy client Service reached from outside (docs/adoption-verdicts.md):
// named <c>, the operator's headless Service takes its name and the
// replacement would release its address (B20, or W21 when accepted with
// --replace-client-service); under another name it is kept as it is (N14).
void check_client_service(const op::LegacyCluster& legacy, const ClusterFacts& facts, const PlanOptions& options,
                          ClusterPlan& plan) {
  const std::string cs = legacy.client_service(), c = legacy.name;
  const bool named_c = cs == c && legacy.headless_service() != c;
  const std::optional<json>& svc = named_c ? facts.service_c : facts.service_cs;
  if (!svc || (!named_c && cs == c)) return;
  ServiceExposure e = service_exposure(*svc);
  if (!e.external()) return;
  plan.client_service_exposure = e.describe();
  if (!named_c) return;  // N14, among the notes of an Adopt plan
  if (options.replace_client_service) {
    plan.verdicts.push_back({"W21", "the legacy client Service " + base::quoted(cs) + ", " + plan.client_service_exposure +
                                        ", is replaced by the operator's headless Service of the same name "
                                        "(--replace-client-service): its external address is released and clients "
                                        "that use it lose the cluster"});
  } else {
    plan.verdicts.push_back(
        {"B20", "the legacy client Service " + base::quoted(cs) + " is " + plan.client_service_exposure +
                    "; the operator needs the name " + base::quoted(c) +
                    " for its headless Service, so the adoption would replace it and release its external address: "
                    "move its clients to the operator's client Service " +
                    base::quoted(op::native_client_service(c)) +
                    " (or a Service of your own selecting the pods) first, or accept the replacement with "
                    "--replace-client-service"});
  }
}

void check_live(const op::LegacyCluster& legacy, const ClusterFacts& facts, bool storage_ok, ClusterPlan& plan) {
  for (const auto& m : facts.members) {
    if (m.is_learner) {
      // A learner added but never started has no name yet: its ID names it.
      std::string who = m.name.empty() ? "member " + m.id + " (no name yet)" : "member " + base::quoted(m.name) + " (" + m.id + ")";
      plan.verdicts.push_back({"B9", who + " is a learner; the legacy operator never made learners: promote or remove it first"});
    }
  }
  for (const auto& m : facts.members) {
    if (m.name.empty()) {
      plan.verdicts.push_back({"B10", "member " + m.id + " has never started (no name); remove it or start it first"});
      continue;
    }
    auto it = facts.pods.find(m.name);
    if (it == facts.pods.end()) {
      plan.verdicts.push_back({"B10", "member " + base::quoted(m.name) + " has no pod of the same name"});
    } else if (!it->second.running || !it->second.ready || it->second.deleting) {
      plan.verdicts.push_back({"B10", "the pod of member " + base::quoted(m.name) + " is not Running and Ready" +
                                          std::string(it->second.deleting ? " (it is being deleted)" : "") +
                                          "; wait until it is"});
    }
  }
  if (!storage_ok) return;
  for (const auto& m : facts.members) {
    if (m.name.empty()) continue;
    std::string pvc = op::member_pvc(m.name);
    auto it = facts.pvcs.find(m.name);
    if (it == facts.pvcs.end() || !it->second.found) {
      std::string why = it != facts.pvcs.end() && !it->second.error.empty() ? it->second.error : "not found";
      plan.verdicts.push_back({"B11", "PVC " + base::quoted(pvc) + " of member " + base::quoted(m.name) + ": " + why});
    } else if (!it->second.controller_kind.empty() && it->second.controller_kind != op::kKindEtcdMember) {
      plan.verdicts.push_back({"B12", "PVC " + base::quoted(pvc) + " is controlled by " + it->second.controller_kind + " " +
                                          base::quoted(it->second.controller_name) + "; refusing to take it over"});
    }
  }
  (void)legacy;
}

// docs/certificates.md: what `kubectl-etcd certs` finds in the legacy TLS
// Secrets, as verdicts; an expired certificate blocks.
void check_certificates(const ClusterFacts& facts, ClusterPlan& plan) {
  if (!facts.certificates_error.empty()) {
    plan.verdicts.push_back({"W25", "the TLS Secrets' certificates could not be judged: " + facts.certificates_error});
  }
  for (const auto& f : facts.certificates) {
    for (const auto& p : f.problems) {
      const char* id = p.code == "expired"                              ? "B21"
                       : p.code == "expiring"                           ? "W24"
                       : p.code == "san-today" || p.code == "san-future" ? "W23"
                                                                         : "W25";
      plan.verdicts.push_back({id, p.message});
    }
  }
}

void add_notes(const op::LegacyCluster& legacy, const PlanOptions& options, ClusterPlan& plan) {
  const std::string hl = legacy.headless_service(), cs = legacy.client_service(), c = legacy.name;
  if (!options.backup_configured && !options.skip_backup) {
    plan.verdicts.push_back({"W16", "no backup destination: --apply will require --backup-dir or --backup-s3-* "
                                    "(a safety snapshot before ownership changes) or an explicit --skip-backup"});
  }
  plan.verdicts.push_back({"N3", "the adoption is in place: pods and PVCs stay and are never restarted; only "
                                 "ownership, labels and member annotations change"});
  plan.verdicts.push_back({"N4", "members carry " + std::string(op::kAnnHeadlessServiceName) + "=" + hl +
                                     " so the operator's URLs match the adopted pods' DNS names; it disappears as "
                                     "members are replaced"});
  plan.verdicts.push_back({"N5", "the legacy headless Service " + base::quoted(hl) +
                                     " is owner-referenced to the adopted members and is garbage-collected once the "
                                     "last of them is replaced"});
  if (cs == c) {
    plan.verdicts.push_back({"N6", "the legacy client Service " + base::quoted(cs) +
                                       " is replaced in place by the native headless Service of the same name: "
                                       "DNS-name clients keep working, ClusterIP-dependent ones do not"});
  } else {
    plan.verdicts.push_back({"N6", "the legacy client Service " + base::quoted(cs) +
                                       " keeps serving (the pods keep the legacy labels) and gets a non-controller "
                                       "owner reference to the new EtcdCluster; the native headless Service " +
                                       base::quoted(c) + (hl == c ? " is the legacy headless Service, kept" : " is created")});
  }
  if (cs != c && !plan.client_service_exposure.empty()) {
    std::string takeover;
    if (cs == op::native_client_service(c)) {
      takeover = "; its name is the operator's own client Service's: the operator takes it over, setting its "
                 "selector and its port \"client\" and leaving the rest as it is";
    }
    plan.verdicts.push_back({"N14", "the legacy client Service " + base::quoted(cs) + ", " + plan.client_service_exposure +
                                        ", is kept as it is (type, ports, class and addresses) and owned by the new "
                                        "EtcdCluster, so it is collected with it" + takeover});
  }
  if (plan.resume) {
    plan.verdicts.push_back({"N7", "an earlier run's EtcdCluster " + base::quoted(c) +
                                       " exists: every step runs again and finishes what is left"});
  }
}

void build_objects(const op::LegacyCluster& legacy, const ClusterFacts& facts, const SpecTranslation& t,
                   ClusterPlan& plan) {
  const std::string c = legacy.name, ns = legacy.ns;
  ojson annotations = t.annotations;
  annotations[std::string(op::kAnnAdoptedFrom)] = legacy.uid;
  plan.cluster = {{"apiVersion", std::string(op::kApiVersion)},
                  {"kind", std::string(op::kKindEtcdCluster)},
                  {"metadata", {{"name", c}, {"namespace", ns}, {"annotations", annotations}}},
                  {"spec", t.spec}};

  std::vector<const LiveMember*> sorted;
  for (const auto& m : facts.members) sorted.push_back(&m);
  std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::string initial_cluster;
  for (const auto* m : sorted) initial_cluster += (initial_cluster.empty() ? "" : ",") + m->name + "=" + m->peer_url;

  ojson status = {{"clusterID", plan.cluster_id}, {"clusterToken", op::cluster_token(c, ns)}};
  ojson observed = {{"replicas", t.spec["replicas"]}, {"version", base::string_at(t.spec, "/version")},
                    {"storage", t.spec["storage"]}, {"resources", t.spec["resources"]}};
  for (const char* key : {"affinity", "topologySpreadConstraints", "additionalMetadata", "options", "imagePullSecrets"}) {
    if (t.spec.contains(key)) observed[key] = t.spec[key];
  }
  status["observed"] = observed;
  plan.cluster_status = status;

  // docs/rules.md#adopted-members: member-level labels plus the cluster's additionalMetadata labels
  // (reserved keys dropped as the operator drops them; ours win).
  ojson extra_labels = ojson::object();
  if (t.spec.contains("additionalMetadata") && t.spec["additionalMetadata"].contains("labels")) {
    for (auto it = t.spec["additionalMetadata"]["labels"].begin(); it != t.spec["additionalMetadata"]["labels"].end(); ++it) {
      if (it.key().rfind(op::kReservedPrefix, 0) != 0) extra_labels[it.key()] = it.value();
    }
  }
  for (const auto* m : sorted) {
    ojson labels = extra_labels;
    const ojson own = op::member_labels(c, m->name);
    for (auto it = own.begin(); it != own.end(); ++it) labels[it.key()] = it.value();
    ojson spec = {{"clusterName", c}};
    for (const char* key : {"version", "storage", "resources", "additionalMetadata", "affinity",
                            "topologySpreadConstraints", "options", "imagePullSecrets"}) {
      if (t.spec.contains(key)) spec[key] = t.spec[key];
    }
    spec["initialCluster"] = initial_cluster;
    spec["clusterToken"] = op::cluster_token(c, ns);
    spec["replicas"] = 1;
    if (!t.member_tls.is_null()) spec["tls"] = t.member_tls;
    ojson member = {
        {"apiVersion", std::string(op::kApiVersion)},
        {"kind", std::string(op::kKindEtcdMember)},
        {"metadata",
         {{"name", m->name},
          {"namespace", ns},
          {"labels", labels},
          {"annotations",
           {{std::string(op::kAnnHeadlessServiceName), legacy.headless_service()},
            {std::string(op::kAnnDataDirSubpath), std::string(op::kLegacyDataDirSubpath)}}},
          {"ownerReferences", ojson::array({member_owner_reference(c, "")})}}},
        {"spec", spec}};
    plan.member_names.push_back(m->name);
    plan.members.push_back(member);
    auto pod = facts.pods.find(m->name);
    plan.member_statuses.push_back({{"memberID", m->id},
                                    {"podName", m->name},
                                    {"podUID", pod != facts.pods.end() ? pod->second.uid : ""},
                                    {"pvcName", op::member_pvc(m->name)},
                                    {"isVoter", true}});
  }
  if (t.generate_root_secret) {
    plan.root_secret = ojson{{"apiVersion", "v1"},
                             {"kind", "Secret"},
                             {"metadata", {{"name", t.root_secret}, {"namespace", ns}}},
                             {"type", "kubernetes.io/basic-auth"},
                             {"stringData", {{"username", "root"}}}};
  }
}

}  // namespace

ClusterPlan plan_cluster(const op::LegacyCluster& legacy, const ClusterFacts& facts, const PlanOptions& options) {
  ClusterPlan plan;
  plan.ns = legacy.ns;
  plan.name = legacy.name;
  plan.legacy_uid = legacy.uid;
  plan.headless_service = legacy.headless_service();
  plan.client_service = legacy.client_service();
  plan.cluster_id = facts.cluster_id;
  plan.live_auth = facts.live_auth;
  plan.legacy_pdb = base::find_at(legacy.spec, "/podDisruptionBudgetTemplate") != nullptr;

  if (legacy.deleting) {
    bool marked = facts.new_cluster && op::annotation(*facts.new_cluster, op::kAnnAdoptedFrom) == legacy.uid;
    plan.action = marked ? ClusterAction::Adopted : ClusterAction::Ignored;
    plan.verdicts.push_back(
        marked ? Verdict{"N13", "already adopted: the legacy EtcdCluster is Terminating and the new EtcdCluster "
                                "carries this tool's marker; it stays Terminating until the legacy webhook "
                                "configurations are removed"}
               : Verdict{"N13", "the legacy EtcdCluster is being deleted by someone else; it is reported, not planned"});
    return plan;
  }

  SpecTranslation t = translate_spec(legacy, facts.members, facts, options);
  plan.verdicts = t.verdicts;
  plan.spec_auth = t.spec_auth;
  plan.root_secret_name = t.root_secret;
  if (facts.inspect_error) {
    plan.verdicts.push_back({"B1", "inspecting the live cluster failed: " + *facts.inspect_error});
  } else if (facts.members.empty()) {
    plan.verdicts.push_back({"B1", "inspecting the live cluster failed: etcd reported no members"});
  } else {
    bool storage_ok = std::none_of(plan.verdicts.begin(), plan.verdicts.end(), [](const Verdict& v) {
      return v.id == "B4" || v.id == "B5" || v.id == "B15";
    });
    check_live(legacy, facts, storage_ok, plan);
  }
  check_existing(legacy, facts, plan);
  check_service_c(legacy, facts, plan);
  check_client_service(legacy, facts, options, plan);
  check_certificates(facts, plan);

  if (has_blocker(plan.verdicts)) {
    plan.action = ClusterAction::Error;
    // Notes describe what the adoption would do; on a blocked plan they would
    // mislead. Warnings stay: all of a cluster's findings are shown at once.
    plan.verdicts.erase(std::remove_if(plan.verdicts.begin(), plan.verdicts.end(),
                                       [](const Verdict& v) { return v.severity() == Severity::Note; }),
                        plan.verdicts.end());
    sort_verdicts(plan.verdicts);
    return plan;
  }
  plan.action = ClusterAction::Adopt;
  add_notes(legacy, options, plan);
  sort_verdicts(plan.verdicts);
  build_objects(legacy, facts, t, plan);
  return plan;
}

ojson to_json(const ClusterPlan& plan) {
  ojson j = {{"kind", "EtcdCluster"},
             {"namespace", plan.ns},
             {"name", plan.name},
             {"legacyUID", plan.legacy_uid},
             {"action", action_name(plan.action)},
             {"clusterID", plan.cluster_id},
             {"headlessService", plan.headless_service},
             {"clientService", plan.client_service},
             {"liveAuth", plan.live_auth},
             {"specAuth", plan.spec_auth},
             {"resume", plan.resume},
             {"verdicts", to_json(plan.verdicts)}};
  if (!plan.client_service_exposure.empty()) j["clientServiceExposure"] = plan.client_service_exposure;
  if (plan.action != ClusterAction::Adopt) return j;
  ojson objects = ojson::array();
  if (plan.root_secret) objects.push_back(*plan.root_secret);
  objects.push_back(plan.cluster);
  for (const auto& m : plan.members) objects.push_back(m);
  j["objects"] = objects;
  j["clusterStatus"] = plan.cluster_status;
  ojson statuses = ojson::object();
  for (size_t i = 0; i < plan.members.size(); ++i) statuses[plan.member_names[i]] = plan.member_statuses[i];
  j["memberStatuses"] = statuses;
  return j;
}

}  // namespace migrate
