// The adoption pipeline's steps on Kubernetes objects
// (migrate/adoption_pipeline.h): the new EtcdCluster and EtcdMembers, then
// the legacy objects handed over or deleted (docs/adoption-design.md).
#include "migrate/adoption_pipeline.h"

#include <chrono>
#include <functional>
#include <tuple>

#include "base/json_at.h"
#include "kube/deletion.h"
#include "migrate/inventory.h"
#include "migrate/ownership.h"
#include "migrate/recorded_facts.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using namespace std::chrono_literals;

// --- new objects ------------------------------------------------------------------
base::Result<base::StepAnswer> Pipeline::cluster_step() {
  json cluster;
  bool acted = false;
  // Created straight away when the plan found none (AlreadyExists: a
  // concurrent run's, read and judged below); read when it found one.
  base::Result<json> existing = base::make_error(base::ErrorKind::NotFound, "not found by the plan");
  if (find_object(plan_.inventory.new_clusters, p_.ns, p_.name) != nullptr) {
    existing = k_.get(op::resources::etcdclusters, p_.ns, p_.name);
  }
  if (existing) {
    cluster = *existing;
  } else {
    if (!kube::is_not_found(existing.error())) return std::move(existing).error();
    auto facts = adoption_facts();
    if (!facts) return std::move(facts).error();
    json object = json(p_.cluster);
    object["metadata"]["annotations"][std::string(op::kAnnAdoption)] = facts->dump();
    auto created = k_.create(op::resources::etcdclusters, p_.ns, object);
    if (!created && !kube::is_already_exists(created.error())) return std::move(created).error();
    if (!created) created = k_.get(op::resources::etcdclusters, p_.ns, p_.name);
    if (!created) return std::move(created).error();
    cluster = *created;
    acted = true;
  }
  // Only our own object for this legacy cluster (docs/rules.md#only-our-own-objects).
  if (op::annotation(cluster, op::kAnnAdoptedFrom) != p_.legacy_uid) {
    return base::make_error(base::ErrorKind::Refused, "exists without this tool's marker for this legacy cluster",
                            "etcdcluster \"" + p_.ns + "/" + p_.name + "\"", "B17: it is not ours to adopt into");
  }
  // Status prefill (docs/rules.md#status-prefill), re-read and re-decided on a conflict.
  for (int attempt = 0; base::string_at(cluster, "/status/clusterID").empty(); ++attempt) {
    json updated = cluster;
    updated["status"] = json(p_.cluster_status);
    kube::ReplaceOptions ro;
    ro.subresource = "status";
    auto r = k_.replace(op::resources::etcdclusters, p_.ns, updated, ro);
    if (r) {
      cluster = *r;
      acted = true;
      break;
    }
    if (!kube::is_conflict(r.error()) || attempt > 5) return std::move(r).error();
    auto again = k_.get(op::resources::etcdclusters, p_.ns, p_.name);
    if (!again) return std::move(again).error();
    cluster = std::move(*again);
  }
  std::string id = base::string_at(cluster, "/status/clusterID");
  if (id != p_.cluster_id) {
    return base::make_error(base::ErrorKind::Refused, "records cluster ID " + id + " but etcd reports " + p_.cluster_id,
                            "etcdcluster \"" + p_.ns + "/" + p_.name + "\"");
  }
  cluster_ = cluster;
  cluster_uid_ = base::string_at(cluster, "/metadata/uid");
  return Answer::did_if(acted);
}

base::Result<base::StepAnswer> Pipeline::members_step() {
  MemberUids uids;
  bool acted = false;
  for (std::size_t i = 0; i < p_.members.size(); ++i) {
    const std::string& m = p_.member_names[i];
    json member = json(p_.members[i]);
    member["metadata"]["ownerReferences"][0]["uid"] = cluster_uid_;
    // As the cluster: created straight away when the plan found none.
    base::Result<json> got = base::make_error(base::ErrorKind::NotFound, "not found by the plan");
    if (find_object(plan_.inventory.new_members, p_.ns, m) != nullptr) got = k_.get(op::resources::etcdmembers, p_.ns, m);
    if (!got) {
      if (!kube::is_not_found(got.error())) return std::move(got).error();
      auto created = k_.create(op::resources::etcdmembers, p_.ns, member);
      if (!created && !kube::is_already_exists(created.error())) return std::move(created).error();
      got = created ? std::move(created) : k_.get(op::resources::etcdmembers, p_.ns, m);
      if (!got) return std::move(got).error();
      acted = true;
    }
    json live = *got;
    const json* ctrl = op::controller_of(live);
    if (ctrl == nullptr || base::string_at(*ctrl, "/uid") != cluster_uid_) {
      return base::make_error(base::ErrorKind::Refused, "is not controlled by the adopted EtcdCluster",
                              "etcdmember \"" + p_.ns + "/" + m + "\"", "B17: it is not ours to take over");
    }
    for (int attempt = 0; base::string_at(live, "/status/memberID").empty(); ++attempt) {
      json updated = live;
      updated["status"] = json(p_.member_statuses[i]);
      kube::ReplaceOptions ro;
      ro.subresource = "status";
      auto r = k_.replace(op::resources::etcdmembers, p_.ns, updated, ro);
      if (r) {
        live = *r;
        acted = true;
        break;
      }
      if (!kube::is_conflict(r.error()) || attempt > 5) return std::move(r).error();
      auto again = k_.get(op::resources::etcdmembers, p_.ns, m);
      if (!again) return std::move(again).error();
      live = std::move(*again);
    }
    uids.push_back({m, base::string_at(live, "/metadata/uid")});
  }
  member_uids_ = std::move(uids);
  return Answer::did_if(acted);
}

// --- the legacy objects -------------------------------------------------------------
base::Result<base::StepAnswer> Pipeline::headless_step() {
  // The plan's copy first; gone means collected after an earlier complete run.
  const json* known = find_object(plan_.inventory.services, p_.ns, p_.headless_service);
  auto wrote = set_service_owners(p_.headless_service, known, [&](const json& svc) {
    return headless_owner_references(svc, member_uids_);
  });
  if (!wrote) return std::move(wrote).error();
  return Answer::did_if(*wrote);
}

// Sets Service `name`'s ownerReferences to owners(service) with a PUT,
// reading it again on a conflict; the first read may be a copy the run
// already has (`known`), whose resourceVersion guards the write. A Service
// that is gone is left alone. Answers whether it wrote.
base::Result<bool> Pipeline::set_service_owners(const std::string& name, const json* known,
                                                const std::function<json(const json&)>& owners) {
  for (int attempt = 0;; ++attempt) {
    auto svc = attempt == 0 && known != nullptr ? base::Result<json>(*known)
                                                : k_.get(kube::resources::services, p_.ns, name);
    if (!svc) {
      if (kube::is_not_found(svc.error())) return false;
      return std::move(svc).error();
    }
    json refs = owners(*svc);
    if (base::array_at(*svc, "/metadata/ownerReferences") == refs) return false;
    json updated = *svc;
    updated["metadata"]["ownerReferences"] = refs;
    auto r = k_.replace(kube::resources::services, p_.ns, updated);
    if (r) return true;
    if (!kube::is_conflict(r.error()) || attempt > 5) return std::move(r).error();
  }
}

// Orphan-deletes StatefulSet <c> and waits only until the delete is
// accepted (a deletionTimestamp and the `orphan` finalizer), not until the
// garbage collector has let it go: a StatefulSet being deleted neither
// claims nor creates pods, so the re-own that follows can take the pods
// from it, after which the collector has nothing left to orphan
// (docs/adoption-reown.md).
base::Result<base::StepAnswer> Pipeline::statefulset_step() {
  bool acted = false;
  // The pods name their StatefulSet's UID: deleted by it without reading
  // it first. A 409 (another object of that name now) reads it below.
  std::string uid;
  for (const auto& m : p_.member_names) {
    const json* pod = find_object(plan_.inventory.pods, p_.ns, m);
    const json* ctrl = pod != nullptr ? op::controller_of(*pod) : nullptr;
    if (ctrl != nullptr && base::string_at(*ctrl, "/kind") == "StatefulSet" && base::string_at(*ctrl, "/name") == p_.name) {
      uid = base::string_at(*ctrl, "/uid");
    }
  }
  kube::DeleteOptions o;
  o.propagation = kube::Propagation::Orphan;
  bool gone = false;
  json answer;  // the server's answer to the delete: the object, or a Status when it went at once
  if (!uid.empty()) {
    o.precondition_uid = uid;
    auto r = k_.remove(kube::resources::statefulsets, p_.ns, p_.name, o);
    if (r) {
      acted = true;
      answer = std::move(*r);
    } else if (kube::is_not_found(r.error())) {
      gone = true;
    } else if (!kube::is_conflict(r.error())) {
      return std::move(r).error();
    }
  }
  if (!acted && !gone) {
    auto sts = k_.get(kube::resources::statefulsets, p_.ns, p_.name);
    if (sts) {
      o.precondition_uid = base::string_at(*sts, "/metadata/uid");
      auto r = k_.remove(kube::resources::statefulsets, p_.ns, p_.name, o);
      if (r) answer = std::move(*r);
      else if (kube::is_not_found(r.error())) gone = true;
      else return std::move(r).error();
      acted = true;
    } else if (kube::is_not_found(sts.error())) {
      gone = true;
    } else {
      return std::move(sts).error();
    }
  }
  const bool accepted = gone || (answer.is_object() && base::string_at(answer, "/kind") != "Status" &&
                                 kube::orphan_delete_accepted(&answer));
  if (!accepted) {
    // Not shown by the answer: read until it is (or the object is gone).
    auto w = k_.wait_for(kube::resources::statefulsets, p_.ns, p_.name, kube::orphaning_or_gone(), 120s);
    if (!w) return std::move(w).error();
  }
  return Answer::did_if(acted);
}

base::Result<base::StepAnswer> Pipeline::leftovers_step() {
  bool acted = false;
  // The StatefulSet's ControllerRevisions, by the names recorded (docs/rules.md#controllerrevisions).
  auto facts = read_recorded_facts(cluster_);
  if (!facts && facts.error().kind != base::ErrorKind::NotFound) return std::move(facts).error();
  std::vector<std::pair<const kube::Resource*, std::string>> todo;
  if (facts) {
    for (const auto& name : facts->controller_revisions) todo.push_back({&kube::resources::controllerrevisions, name});
  }
  todo.push_back({&kube::resources::configmaps, op::legacy_cluster_state_configmap(p_.name)});
  todo.push_back({&kube::resources::poddisruptionbudgets, p_.name});
  for (const auto& [r, name] : todo) {
    if (r == &kube::resources::poddisruptionbudgets) {
      // The operator creates its own PDB of that name later: only the legacy one goes.
      auto pdb = k_.get(*r, p_.ns, name);
      if (!pdb) {
        if (kube::is_not_found(pdb.error())) continue;
        return std::move(pdb).error();
      }
      const json* ctrl = op::controller_of(*pdb);
      if (ctrl != nullptr && base::string_at(*ctrl, "/apiVersion") == op::kApiVersion) continue;
    }
    auto res = k_.remove(*r, p_.ns, name);
    if (res) acted = true;
    else if (!kube::is_not_found(res.error())) return std::move(res).error();
  }
  return Answer::did_if(acted);
}

base::Result<base::StepAnswer> Pipeline::reown_step() {
  bool acted = false;
  // Read now, after the StatefulSet's orphan delete was accepted: one list
  // of each kind, of this cluster's objects only (the legacy selector: its
  // pods and the PVCs of its claim template carry it), instead of a read per
  // object; an object the lists miss, or a conflict, is read on its own. The garbage
  // collector may be orphaning the same objects meanwhile: a strategic
  // merge patch deletes the old controller reference by its uid and merges
  // ours, so its write and ours commute (no 409 to read again after).
  kube::ListOptions mine;
  mine.label_selector = op::legacy_selector(p_.name);
  auto pods = k_.list_all(kube::resources::pods, p_.ns, mine);
  if (!pods) return std::move(pods).error();
  auto pvcs = k_.list_all(kube::resources::persistentvolumeclaims, p_.ns, mine);
  if (!pvcs) return std::move(pvcs).error();
  auto listed = [&](const json& list, const std::string& name) -> const json* {
    const json* items = base::find_at(list, "/items");
    if (items == nullptr || !items->is_array()) return nullptr;
    for (const auto& o : *items) {
      if (base::string_at(o, "/metadata/name") == name) return &o;
    }
    return nullptr;
  };
  for (const auto& [m, uid] : member_uids_) {
    for (auto [r, name, role] : {std::tuple{&kube::resources::pods, m, true},
                                 std::tuple{&kube::resources::persistentvolumeclaims, op::member_pvc(m), false}}) {
      const json* fresh = listed(role ? *pods : *pvcs, name);
      for (int attempt = 0;; ++attempt) {
        json obj;
        if (attempt == 0 && fresh != nullptr) {
          obj = *fresh;
        } else {
          auto got = k_.get(*r, p_.ns, name);
          if (!got) return std::move(got).error();
          obj = std::move(*got);
        }
        json patch = reown_strategic_patch(obj, p_.name, m, uid, role);
        if (patch.is_null()) break;
        kube::PatchOptions po;
        po.idempotent = true;  // deletes and merges by key: the same result when sent twice
        auto res = k_.patch(*r, p_.ns, name, kube::PatchType::Strategic, patch, po);
        if (res) {
          acted = true;
          break;
        }
        if (!kube::is_conflict(res.error()) || attempt > 10) return std::move(res).error();
      }
    }
  }
  return Answer::did_if(acted);
}

base::Result<base::StepAnswer> Pipeline::service_step() {
  // docs/rules.md#auth-restored-on-early-failure: once the pods belong to the new cluster (and the
  // leftovers are gone), auth stays off for the new operator to turn on; a
  // later failure no longer restores it.
  auth_disabled_by_us_ = false;
  bool acted = false;
  const std::string& c = p_.name;
  json native = json(op::native_headless_service(c, p_.ns, cluster_uid_));
  // Judged from the plan's copy: the delete is guarded by its UID (a
  // replaced Service answers 409 and fails the step; the re-run plans again).
  const json* known = find_object(plan_.inventory.services, p_.ns, c);
  bool deleted = false;
  if (known != nullptr && base::string_at(*known, "/spec/clusterIP") != "None") {
    // clusterIP cannot change in place: delete and re-create back to back.
    // Orphaned, the old Service's EndpointSlices keep the Pods' addresses
    // under the name until the endpoint controller replaces them for the new
    // Service, so name lookups between the two find the Pods rather than no
    // answer, which DNS servers cache (docs/rules.md#client-service-cutover).
    kube::DeleteOptions o;
    o.precondition_uid = base::string_at(*known, "/metadata/uid");
    o.propagation = kube::Propagation::Orphan;
    auto r = k_.remove(kube::resources::services, p_.ns, c, o);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    deleted = true;
  }
  if (known == nullptr || deleted) {
    auto created = k_.create(kube::resources::services, p_.ns, native);
    if (!created && deleted && kube::is_already_exists(created.error())) {
      // The deleted one is still going (the collector orphaning its
      // dependents, or another finalizer): wait, then create.
      if (auto s = k_.wait_deleted(kube::resources::services, p_.ns, c, 60s); !s) return std::move(s).error();
      created = k_.create(kube::resources::services, p_.ns, native);
    }
    if (!created && !kube::is_already_exists(created.error())) return std::move(created).error();
    acted = true;
  }
  if (p_.client_service != c) {
    // docs/rules.md#client-service-cutover: <cs> keeps serving, owned (not controlled) by the new EtcdCluster.
    auto wrote = set_service_owners(p_.client_service, nullptr, [&](const json& cs) {
      json refs = json::array();
      for (const auto& r : base::array_at(cs, "/metadata/ownerReferences")) {
        if (base::string_at(r, "/kind") != op::kKindEtcdCluster) refs.push_back(r);
      }
      refs.push_back(json(op::owner_reference(op::kKindEtcdCluster, c, cluster_uid_, false)));
      return refs;
    });
    if (!wrote) return std::move(wrote).error();
    acted = acted || *wrote;
  }
  return Answer::did_if(acted);
}

base::Result<base::StepAnswer> Pipeline::legacy_delete_step() {
  bool acted = false;
  // The plan's copy says whether it is already being deleted; the delete
  // is guarded by the UID the plan was made for.
  if (base::find_at(plan_.inventory.clusters[index_], "/metadata/deletionTimestamp") == nullptr) {
    kube::DeleteOptions o;
    o.propagation = kube::Propagation::Orphan;
    o.precondition_uid = p_.legacy_uid;
    auto r = k_.remove(op::resources::legacy_etcdclusters, p_.ns, p_.name, o);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    acted = r.ok();
  }
  // Not awaited (docs/rules.md#legacy-webhooks): it stays Terminating while the legacy webhooks exist.
  return Answer::did_if(acted);
}

}  // namespace migrate
