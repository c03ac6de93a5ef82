#include "migrate/inventory.h"

#include <array>
#include <thread>

#include "base/json_at.h"
#include "kube/status_error.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace migrate {

using json = nlohmann::json;

namespace {

std::vector<json> items_of(json list) {
  std::vector<json> out;
  if (auto items = list.find("items"); items != list.end() && items->is_array()) {
    for (auto& item : *items) out.push_back(std::move(item));
  }
  return out;
}

// A list where "not served" reads as empty; served tells which it was.
base::Result<std::vector<json>> list_if_served(kube::Client& client, const kube::Resource& r, const std::string& ns,
                                              bool& served, const kube::ListOptions& options = {}) {
  auto check = client.discovery().served(r);
  if (!check) {
    if (check.error().reason == kube::kReasonNotServed) {
      served = false;
      return std::vector<json>{};
    }
    return check.error();
  }
  served = true;
  auto list = client.list_all(r, ns, options);
  if (!list) return list.error();
  return items_of(std::move(*list));
}

bool names_legacy_group(const json& webhook) {
  const json* rules = base::find_at(webhook, "/rules");
  if (rules == nullptr || !rules->is_array()) return false;
  for (const auto& rule : *rules) {
    const json* groups = base::find_at(rule, "/apiGroups");
    if (groups == nullptr || !groups->is_array()) continue;
    for (const auto& g : *groups) {
      if (g.is_string() && g.get<std::string>() == op::kLegacyGroup) return true;
    }
  }
  return false;
}

// One custom resource kind to list, and where its items and "served" go.
struct KindList {
  const kube::Resource* r;
  std::vector<json>* into;
  bool* served;
};

// Lists the kinds at once: an apiserver that has just started, or just got
// the CRDs, answers the first list of each custom resource 429 while its
// watch cache fills, with Retry-After 1 s (bench/README.md, growth), and one
// kind after the other would wait that out once a kind. The first error in
// the kinds' order is returned, as the one-by-one lists returned it.
base::Status list_kinds(kube::Client& client, const std::string& ns, const std::array<KindList, 3>& kinds) {
  std::array<base::Result<std::vector<json>>, 3> got{std::vector<json>{}, std::vector<json>{}, std::vector<json>{}};
  {
    std::array<std::jthread, 2> others;
    for (std::size_t i = 1; i < kinds.size(); ++i) {
      others[i - 1] = std::jthread([&, i] { got[i] = list_if_served(client, *kinds[i].r, ns, *kinds[i].served); });
    }
    got[0] = list_if_served(client, *kinds[0].r, ns, *kinds[0].served);
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (!got[i]) return got[i].error();
    *kinds[i].into = std::move(*got[i]);
  }
  return {};
}

}  // namespace

base::Result<Inventory> discover(kube::Client& client, const std::string& ns) {
  Inventory inv;
  inv.scope = ns;
  auto listed = list_kinds(client, ns,
                           {KindList{&op::resources::legacy_etcdclusters, &inv.clusters, &inv.clusters_served},
                            KindList{&op::resources::legacy_etcdbackups, &inv.backups, &inv.backups_served},
                            KindList{&op::resources::legacy_etcdbackupschedules, &inv.schedules, &inv.schedules_served}});
  if (!listed) return listed.error();
  // "Nothing to migrate" must not hide a mistyped -n. Asked only when the
  // scope is empty, so a real adoption pays no extra request; a caller who
  // may not read namespaces (403) gets the empty answer as before.
  if (!ns.empty() && inv.empty()) {
    auto space = client.get(kube::resources::namespaces, "", ns);
    if (!space && space.error().kind == base::ErrorKind::NotFound) {
      return base::make_error(base::ErrorKind::NotFound, "the namespace does not exist",
                              kube::resources::namespaces.describe("", ns),
                              "check -n/--namespace against kubectl get namespaces");
    }
  }
  return inv;
}

base::Status read_scope(kube::Client& client, Inventory& inv, std::string& warning) {
  const std::string& ns = inv.scope;
  const std::array<const kube::Resource*, 3> kinds{&op::resources::etcdclusters, &op::resources::etcdmembers,
                                                    &op::resources::etcdsnapshots};
  bool served[3] = {false, false, false};
  auto listed = list_kinds(client, ns,
                           {KindList{kinds[0], &inv.new_clusters, &served[0]},
                            KindList{kinds[1], &inv.new_members, &served[1]},
                            KindList{kinds[2], &inv.snapshots, &served[2]}});
  if (!listed) return listed.error();
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    if (!served[i]) inv.new_api_missing.push_back(kinds[i]->group_resource());
  }
  if (!inv.new_api_missing.empty()) return {};

  kube::ListOptions etcd_pods;
  etcd_pods.label_selector = std::string(op::kLabelName) + "=" + std::string(op::kLabelNameValue);
  auto pods = client.list_all(kube::resources::pods, ns, etcd_pods);
  if (!pods) return pods.error();
  inv.pods = items_of(std::move(*pods));
  auto pvcs = client.list_all(kube::resources::persistentvolumeclaims, ns);
  if (!pvcs) return pvcs.error();
  inv.pvcs = items_of(std::move(*pvcs));
  auto services = client.list_all(kube::resources::services, ns);
  if (!services) return services.error();
  inv.services = items_of(std::move(*services));

  for (const kube::Resource* r : {&op::resources::mutating_webhooks, &op::resources::validating_webhooks}) {
    auto list = client.list_all(*r, "");
    if (!list) {
      warning = "cannot read " + r->plural + " to find the legacy operator's webhooks: " + list.error().one_line();
      continue;
    }
    for (const auto& item : items_of(std::move(*list))) {
      const json* hooks = base::find_at(item, "/webhooks");
      if (hooks == nullptr || !hooks->is_array()) continue;
      for (const auto& h : *hooks) {
        if (names_legacy_group(h)) {
          inv.legacy_webhooks.push_back(r->plural + "/" + base::string_at(item, "/metadata/name"));
          inv.legacy_webhook_objects.push_back(item);
          break;
        }
      }
    }
  }
  return {};
}

namespace {

std::string_view metadata_string(const json& o, const char* field) {
  if (!o.is_object()) return {};
  auto m = o.find("metadata");
  if (m == o.end() || !m->is_object()) return {};
  auto f = m->find(field);
  if (f == m->end() || !f->is_string()) return {};
  return f->get_ref<const std::string&>();
}

}  // namespace

std::string_view object_name(const json& o) { return metadata_string(o, "name"); }
std::string_view object_namespace(const json& o) { return metadata_string(o, "namespace"); }

const json* find_object(const std::vector<json>& objects, const std::string& ns, const std::string& name) {
  for (const auto& o : objects) {
    if (object_name(o) == name && object_namespace(o) == ns) return &o;
  }
  return nullptr;
}

}  // namespace migrate
