#include "migrate/dry_run.h"

#include <algorithm>

#include "base/json_at.h"
#include "kube/status_error.h"
#include "migrate/ownership.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace migrate {

using json = nlohmann::json;

namespace {

struct Judge {
  kube::Client& client;
  std::vector<Verdict> rejections;
  int requests = 0;

  void check(const base::Status& s, const std::string& what) {
    ++requests;
    if (s.ok()) return;
    const base::Error& e = s.error();
    // An object of an earlier run is done, not rejected (docs/rules.md#server-side-dry-run).
    if (kube::is_already_exists(e)) return;
    std::string text = e.message;
    for (const auto& c : e.causes) text += "; " + c;
    rejections.push_back({"B16", "the API server rejects " + what + " (dry-run): " + base::fold_line(text)});
  }
  void create(const kube::Resource& r, const std::string& ns, const json& object, const std::string& what) {
    kube::WriteOptions o;
    o.dry_run = true;
    auto res = client.create(r, ns, object, o);
    check(res.ok() ? base::Status() : base::Status(res.error()), what);
  }
  void patch(const kube::Resource& r, const std::string& ns, const std::string& name, const json& p,
             const std::string& what) {
    if (p.is_null()) return;
    kube::PatchOptions o;
    o.dry_run = true;
    auto res = client.patch(r, ns, name, kube::PatchType::Merge, p, o);
    check(res.ok() ? base::Status() : base::Status(res.error()), what);
  }
  void remove(const kube::Resource& r, const std::string& ns, const std::string& name, const std::string& what) {
    kube::DeleteOptions o;
    o.dry_run = true;
    auto res = client.remove(r, ns, name, o);
    if (!res && res.error().kind == base::ErrorKind::NotFound) return;
    check(res.ok() ? base::Status() : base::Status(res.error()), what);
  }
};

}  // namespace

int dry_run_cluster(kube::Client& client, const Inventory& inv, ClusterPlan& plan) {
  if (plan.action != ClusterAction::Adopt) return 0;
  Judge judge{client, {}, 0};
  const std::string& ns = plan.ns;
  const std::string& c = plan.name;
  if (plan.root_secret) {
    json secret = *plan.root_secret;
    // Never a real password: the Secret's is drawn at apply (docs/rules.md#root-password-never-printed).
    secret["stringData"]["password"] = "dry-run-placeholder";
    judge.create(kube::resources::secrets, ns, secret, "Secret \"" + plan.root_secret_name + "\"");
  }
  if (!plan.resume) judge.create(op::resources::etcdclusters, ns, json(plan.cluster), "EtcdCluster \"" + c + "\"");
  std::vector<std::pair<std::string, std::string>> member_uids;
  for (size_t i = 0; i < plan.members.size(); ++i) {
    const std::string& m = plan.member_names[i];
    json member = plan.members[i];
    std::string uid = kPlaceholderUid;
    if (const json* existing = find_object(inv.new_clusters, ns, c)) {
      member["metadata"]["ownerReferences"][0]["uid"] = base::string_at(*existing, "/metadata/uid");
    } else {
      member["metadata"]["ownerReferences"][0]["uid"] = kPlaceholderUid;
    }
    if (const json* existing = find_object(inv.new_members, ns, m)) {
      uid = base::string_at(*existing, "/metadata/uid");
    } else {
      judge.create(op::resources::etcdmembers, ns, member, "EtcdMember \"" + m + "\"");
    }
    member_uids.push_back({m, uid});
  }
  for (const auto& [m, uid] : member_uids) {
    if (const json* pod = find_object(inv.pods, ns, m)) {
      judge.patch(kube::resources::pods, ns, m, reown_patch(*pod, c, m, uid, true), "the re-own of pod \"" + m + "\"");
    }
    std::string pvc_name = op::member_pvc(m);
    if (const json* pvc = find_object(inv.pvcs, ns, pvc_name)) {
      judge.patch(kube::resources::persistentvolumeclaims, ns, pvc_name, reown_patch(*pvc, c, m, uid, false),
                  "the re-own of PVC \"" + pvc_name + "\"");
    }
  }
  if (const json* hl = find_object(inv.services, ns, plan.headless_service)) {
    json refs = headless_owner_references(*hl, member_uids);
    judge.patch(kube::resources::services, ns, plan.headless_service, {{"metadata", {{"ownerReferences", refs}}}},
                "the owner references of Service \"" + plan.headless_service + "\"");
  }
  const json* svc_c = find_object(inv.services, ns, c);
  std::string cluster_uid = kPlaceholderUid;
  if (const json* existing = find_object(inv.new_clusters, ns, c)) cluster_uid = base::string_at(*existing, "/metadata/uid");
  if (svc_c == nullptr) {
    judge.create(kube::resources::services, ns, json(op::native_headless_service(c, ns, cluster_uid)),
                 "the native headless Service \"" + c + "\"");
  } else if (base::string_at(*svc_c, "/spec/clusterIP") != "None") {
    judge.remove(kube::resources::services, ns, c, "the delete of the legacy client Service \"" + c + "\"");
  }
  block_cluster(plan, std::move(judge.rejections));
  return judge.requests;
}

int dry_run_backup(kube::Client& client, BackupPlan& plan) {
  if (plan.action != BackupAction::Create || plan.objects.empty()) return 0;
  Judge judge{client, {}, 0};
  judge.create(op::resources::etcdsnapshots, plan.ns, json(plan.objects.front()), "EtcdSnapshot \"" + plan.name + "\"");
  if (!judge.rejections.empty()) {
    plan.action = BackupAction::Error;
    plan.deletes_legacy = false;
    plan.objects.clear();
    for (auto& v : judge.rejections) plan.verdicts.push_back(std::move(v));
    sort_verdicts(plan.verdicts);
  }
  return judge.requests;
}

void block_cluster(ClusterPlan& plan, std::vector<Verdict> rejections) {
  if (rejections.empty()) return;
  plan.action = ClusterAction::Error;
  for (auto& v : rejections) plan.verdicts.push_back(std::move(v));
  plan.verdicts.erase(std::remove_if(plan.verdicts.begin(), plan.verdicts.end(),
                                     [](const Verdict& v) { return v.severity() == Severity::Note; }),
                      plan.verdicts.end());
  sort_verdicts(plan.verdicts);
}

}  // namespace migrate
