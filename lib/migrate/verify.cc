#include "migrate/verify.h"

#include <algorithm>
#include <ctime>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "admin/target.h"
#include "base/json_at.h"
#include "base/rfc3339.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/base64.h"
#include "kube/status_error.h"
#include "migrate/inspect.h"
#include "migrate/legacy_webhooks.h"
#include "migrate/recorded_facts.h"
#include "operator/legacy_cluster.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/release_owner.h"
#include "operator/resources.h"
#include "output/render.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

bool ClusterVerification::ok() const {
  for (const auto& c : checks) {
    if (!c.ok) return false;
  }
  for (const auto& f : findings) {
    if (f.severity == admin::Severity::Error) return false;
  }
  return true;
}

bool VerifyReport::ok() const {
  for (const auto& c : clusters) {
    if (!c.ok()) return false;
  }
  return true;
}

int verify_exit_code(const VerifyReport& report) {
  for (const auto& c : report.clusters) {
    if (c.data_differs) return base::exit_code(base::ErrorKind::Inconsistent);
  }
  return report.ok() ? 0 : 1;
}

namespace {

const json* by_name(const json& list, const std::string& name) {
  for (const auto& o : list) {
    if (base::string_at(o, "/metadata/name") == name) return &o;
  }
  return nullptr;
}

// The webhook configurations of the API server, read once per run and only
// when an adopted legacy EtcdCluster is still Terminating.
class Webhooks {
 public:
  explicit Webhooks(kube::Client& k) : k_(k) {}
  const std::vector<std::pair<std::string, json>>& configs() {
    if (loaded_) return configs_;
    loaded_ = true;
    for (const kube::Resource* r : {&op::resources::mutating_webhooks, &op::resources::validating_webhooks}) {
      auto list = k_.list_all(*r, "");
      if (!list) {
        error_ = "cannot list " + r->plural + ": " + list.error().one_line();
        continue;
      }
      for (const auto& item : base::array_at(*list, "/items")) configs_.emplace_back(r->plural + "/" + base::string_at(item, "/metadata/name"), item);
    }
    return configs_;
  }
  const std::string& error() const { return error_; }

 private:
  kube::Client& k_;
  bool loaded_ = false;
  std::vector<std::pair<std::string, json>> configs_;
  std::string error_;
};

class Verifier {
 public:
  Verifier(kube::Client& k, const json& cluster, const VerifyRequest& request, Webhooks& webhooks)
      : k_(k), cluster_(cluster), request_(request), webhooks_(webhooks) {
    v_.ns = base::string_at(cluster, "/metadata/namespace");
    v_.name = base::string_at(cluster, "/metadata/name");
  }

  ClusterVerification run() {
    auto facts = read_recorded_facts(cluster_);
    if (!facts) {
      add("FACTS", false, facts.error().one_line());
      return v_;
    }
    facts_ = std::move(*facts);
    legacy();
    statefulset();
    admin::TargetOptions o;
    o.ns = v_.ns;
    o.cluster = v_.name;
    o.connect = request_.connect;
    auto target = admin::resolve(o, &k_);
    if (!target) {
      add("CONNECT", false, target.error().one_line());
      return v_;
    }
    target_ = std::move(*target);
    auto client = etcd::Client::create(target_.config);
    if (!client) {
      add("CONNECT", false, client.error().one_line());
      return v_;
    }
    etcd_ = std::move(*client);
    auto members = etcd_->member_list(true);
    if (!members) {
      add("CONNECT", false, members.error().one_line());
      return v_;
    }
    identity(*members);
    pods_and_volumes();
    owners();
    data();
    hash_kv();
    auth();
    admin::ConsistencyInput in;
    in.cluster = target_.cluster_object;
    in.members = target_.member_objects;
    in.pods = target_.pod_objects;
    in.etcd = *members;
    v_.findings = admin::check_consistency(in);
    size_t errors = 0;
    for (const auto& f : v_.findings) errors += f.severity == admin::Severity::Error ? 1 : 0;
    add("CONSISTENCY", errors == 0,
        errors == 0 ? "I1-I5 hold (" + std::to_string(v_.findings.size()) + " transient findings)"
                    : std::to_string(errors) + " consistency finding(s), see below");
    return v_;
  }

 private:
  void add(const std::string& code, bool ok, const std::string& detail) { v_.checks.push_back({code, ok, detail}); }

  void legacy() {
    auto l = k_.get(op::resources::legacy_etcdclusters, v_.ns, v_.name);
    std::string marker = op::annotation(cluster_, op::kAnnAdoptedFrom);
    if (!l) {
      bool gone = l.error().kind == base::ErrorKind::NotFound || kube::is_not_served(l.error());
      add("LEGACY", gone, gone ? "the legacy EtcdCluster is gone" : l.error().one_line());
      return;
    }
    bool terminating = base::find_at(*l, "/metadata/deletionTimestamp") != nullptr;
    bool same = base::string_at(*l, "/metadata/uid") == marker;
    const std::string object = "etcdclusters." + std::string(op::kLegacyGroup) + " " + v_.name;
    if (same && terminating) {
      add("LEGACY", true, terminating_detail(*l, object));
    } else if (same) {
      add("LEGACY", false, "the legacy EtcdCluster is not deleted: the adoption is unfinished, re-run adopt --apply");
    } else {
      // Someone created it again after the adoption: typically the chart that
      // rendered it (docs/adoption-verdicts.md, W22).
      std::string detail = "a legacy EtcdCluster " + v_.ns + "/" + v_.name + " was created again after the adoption (uid " +
                           base::string_at(*l, "/metadata/uid") + ", created " +
                           base::string_at(*l, "/metadata/creationTimestamp") + ")";
      if (auto owner = op::release_owner(*l)) {
        detail += " by " + owner->describe() + ": " +
                  (owner->flux() ? "suspend the HelmRelease (flux suspend helmrelease -n " + owner->flux_namespace + " " +
                                       owner->flux_name + ")"
                                 : "stop upgrading the release") +
                  " or move the chart to the " + std::string(op::kApiVersion) + " API, then";
      } else {
        detail += ":";
      }
      detail += " delete it (kubectl -n " + v_.ns + " delete " + object + "); a legacy operator started again would "
                "run a StatefulSet beside the adopted pods";
      add("LEGACY", false, detail);
    }
  }

  // The adoption goes on once the StatefulSet's orphan delete is accepted;
  // the garbage collector lets it go soon after (docs/adoption-reown.md).
  // Verified only once it is gone, waiting a bounded time for that.
  void statefulset() {
    auto sts = k_.get(kube::resources::statefulsets, v_.ns, v_.name);
    if (!sts) {
      bool gone = sts.error().kind == base::ErrorKind::NotFound;
      add("STATEFULSET", gone, gone ? "the legacy StatefulSet is gone" : sts.error().one_line());
      return;
    }
    if (base::find_at(*sts, "/metadata/deletionTimestamp") == nullptr) {
      add("STATEFULSET", false, "StatefulSet " + v_.name + " is not being deleted: the adoption is unfinished, re-run adopt --apply");
      return;
    }
    auto w = k_.wait_for(kube::resources::statefulsets, v_.ns, v_.name, kube::is_gone(), kStatefulSetWait);
    add("STATEFULSET", w.ok(),
        w ? "the legacy StatefulSet is gone"
          : "StatefulSet " + v_.name + " is still Terminating after " + std::to_string(kStatefulSetWait.count() / 1000) +
                " s: is the garbage collector (kube-controller-manager) running? " + w.error().one_line());
  }

  static constexpr std::chrono::milliseconds kStatefulSetWait{120000};


  // How long the adopted legacy EtcdCluster has been Terminating, what keeps
  // it, and how the wait ends (docs/adoption-runbook.md, "Legacy webhooks").
  std::string terminating_detail(const json& l, const std::string& object) {
    const std::string since = base::string_at(l, "/metadata/deletionTimestamp");
    auto t = base::parse_rfc3339_seconds(since);
    std::string detail = "the legacy EtcdCluster is Terminating";
    if (t) {
      long long seconds = std::max<long long>(0, static_cast<long long>(std::time(nullptr) - *t));
      v_.legacy_terminating_since = since;
      v_.legacy_terminating_seconds = seconds;
      detail = "the legacy EtcdCluster has been Terminating for " + output::human_age(std::chrono::seconds(seconds)) +
               " (since " + since + ")";
    }
    std::string hooks;
    for (const auto& [name, config] : webhooks_.configs()) {
      if (webhook_covers(config, l)) hooks += " " + name;
    }
    const std::string drop = "kubectl -n " + v_.ns + " patch " + object +
                             " --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'";
    if (!hooks.empty()) {
      return detail + ": the legacy webhook configurations" + hooks +
             " refuse the garbage collector's removal of its orphan finalizer; delete them (kubectl delete" + hooks +
             ") once every legacy EtcdCluster they cover is adopted, then the collector finishes on its next retry "
             "(its backoff reaches about 17 minutes); to end the wait at once after that: " + drop;
    }
    return detail + (webhooks_.error().empty() ? ": no legacy webhook refuses the garbage collector any more"
                                              : " (" + webhooks_.error() + ")") +
           "; it goes on the collector's next retry (its backoff reaches about 17 minutes after repeated refusals); "
           "to end the wait at once: " + drop;
  }
  void identity(const etcd::MemberList& list) {
    std::string live = etcd::format_member_id(list.header.cluster_id);
    std::string status = base::string_at(cluster_, "/status/clusterID");
    const std::string& recorded = facts_.cluster_id;
    add("CLUSTER_ID", live == status && live == recorded,
        "etcd " + live + ", status " + status + ", recorded " + recorded);
    std::map<std::string, std::string> etcd_ids;
    std::set<std::string> learners;
    for (const auto& m : list.members) {
      etcd_ids[m.name] = etcd::format_member_id(m.id);
      if (m.is_learner) learners.insert(m.name);
    }
    std::string problems;
    for (const auto& [name, recorded_member] : facts_.members) {
      const std::string& want = recorded_member.member_id;
      if (etcd_ids[name] != want) problems += " " + name + ": etcd " + etcd_ids[name] + " recorded " + want + ";";
      const json* em = by_name(target_.member_objects, name);
      std::string st = em != nullptr ? base::string_at(*em, "/status/memberID") : "";
      if (st != want) problems += " EtcdMember " + name + " status.memberID " + st + ";";
    }
    if (etcd_ids.size() != facts_.members.size()) problems += " etcd has " + std::to_string(etcd_ids.size()) + " members;";
    add("MEMBERS", problems.empty(), problems.empty() ? std::to_string(etcd_ids.size()) + " members, IDs as recorded" : problems);
  }

  void pods_and_volumes() {
    std::string pod_problems, volume_problems;
    for (const auto& [m, recorded] : facts_.members) {
      const json* pod = by_name(target_.pod_objects, m);
      if (pod == nullptr) {
        pod_problems += " " + m + ": no pod;";
        continue;
      }
      if (base::string_at(*pod, "/metadata/uid") != recorded.pod_uid) pod_problems += " " + m + ": recreated;";
      long long restarts = 0;
      if (const json* st = base::find_at(*pod, "/status/containerStatuses"); st && st->is_array()) {
        for (const auto& cs : *st) restarts += base::int_at(cs, "/restartCount");
      }
      if (restarts != recorded.restarts) pod_problems += " " + m + ": restarted;";
      auto pvc = k_.get(kube::resources::persistentvolumeclaims, v_.ns, op::member_pvc(m));
      if (!pvc) {
        volume_problems += " " + op::member_pvc(m) + ": " + pvc.error().one_line() + ";";
      } else if (base::string_at(*pvc, "/spec/volumeName") != recorded.volume_name) {
        volume_problems += " " + op::member_pvc(m) + ": bound to another volume;";
      } else {
        pvcs_[m] = *pvc;
      }
    }
    add("PODS", pod_problems.empty(), pod_problems.empty() ? "same pod UIDs, no restarts" : pod_problems);
    add("VOLUMES", volume_problems.empty(), volume_problems.empty() ? "same PVC bindings" : volume_problems);
  }

  void owners() {
    std::string problems;
    std::string cluster_uid = base::string_at(cluster_, "/metadata/uid");
    for (const auto& member : target_.member_objects) {
      std::string m = base::string_at(member, "/metadata/name");
      std::string uid = base::string_at(member, "/metadata/uid");
      const json* c = op::controller_of(member);
      if (c == nullptr || base::string_at(*c, "/uid") != cluster_uid) problems += " EtcdMember " + m + ": not controlled by the EtcdCluster;";
      const json* pod = by_name(target_.pod_objects, m);
      const json* pc = pod != nullptr ? op::controller_of(*pod) : nullptr;
      if (pc == nullptr || base::string_at(*pc, "/uid") != uid) problems += " pod " + m + ": not controlled by its EtcdMember;";
      if (pod != nullptr) {
        const json* labels = base::find_at(*pod, "/metadata/labels");
        json want = op::member_labels(v_.name, m);
        for (auto it = want.begin(); it != want.end(); ++it) {
          if (labels == nullptr || base::string_at(*labels, "/" + base::pointer_token(it.key())) != it.value()) problems += " pod " + m + ": label " + it.key() + ";";
        }
      }
      auto pvc = pvcs_.find(m);
      const json* vc = pvc != pvcs_.end() ? op::controller_of(pvc->second) : nullptr;
      if (vc == nullptr || base::string_at(*vc, "/uid") != uid) problems += " PVC " + op::member_pvc(m) + ": not controlled by its EtcdMember;";
    }
    add("OWNERS", problems.empty(), problems.empty() ? "EtcdCluster -> EtcdMembers -> pods and PVCs" : problems);
  }

  // docs/rules.md#verify-data-check: HashKV at the recorded revision while it is not compacted; after
  // that, the same hash on every member at one current revision >= R.
  void data() {
    long long r = facts_.revision;
    std::map<std::string, std::uint32_t> now_hash;
    std::string problems;
    bool compacted = false;
    for (const auto& t : target_.members) {
      if (t.endpoint.empty()) continue;
      auto rec = facts_.members.find(t.name);
      auto h = etcd_->hash_kv(t.endpoint, r);
      if (!h) {
        if (etcd::is_compacted(h.error())) {
          compacted = true;
          continue;
        }
        problems += " " + t.name + ": " + h.error().one_line() + ";";
        continue;
      }
      if (rec != facts_.members.end() && rec->second.hash_kv && *rec->second.hash_kv != h->hash) {
        problems += " " + t.name + ": HashKV at revision " + std::to_string(r) + " differs;";
      }
    }
    if (compacted) {
      auto head = etcd_->range(std::string(op::kHealthKey));
      if (!head) {
        problems += " " + head.error().one_line();
      } else {
        if (head->header.revision < r) problems += " revision went back;";
        for (const auto& t : target_.members) {
          if (t.endpoint.empty()) continue;
          auto h = etcd_->hash_kv(t.endpoint, head->header.revision);
          if (h) now_hash[t.name] = h->hash;
          else problems += " " + t.name + ": " + h.error().one_line() + ";";
        }
        std::set<std::uint32_t> distinct;
        for (const auto& [n, h] : now_hash) distinct.insert(h);
        if (distinct.size() > 1) problems += " members disagree at revision " + std::to_string(head->header.revision) + ";";
      }
    }
    add("DATA", problems.empty(),
        problems.empty() ? (compacted ? "revision " + std::to_string(r) + " compacted since; members agree now"
                                      : "HashKV at revision " + std::to_string(r) + " as recorded on every member")
                         : problems);
  }

  // Whatever the recorded facts say, the members must hold the same data
  // now (docs/data-consistency.md).
  void hash_kv() {
    auto r = admin::compare_hash_kv(target_, *etcd_);
    if (!r) {
      add("HASHKV", false, r.error().one_line());
      return;
    }
    v_.data_differs = r->comparison.verdict == admin::HashVerdict::Inconsistent;
    add("HASHKV", r->comparison.verdict == admin::HashVerdict::Consistent,
        std::string(admin::verdict_name(r->comparison.verdict)) + " at revision " + std::to_string(r->revision) +
            ": " + r->comparison.message);
  }

  void auth() {
    const json* auth = base::find_at(cluster_, "/spec/auth");
    if (auth == nullptr) return;
    std::string secret_name = base::string_at(cluster_, "/spec/auth/rootCredentialsSecretRef/name");
    auto secret = k_.get(kube::resources::secrets, v_.ns, secret_name);
    if (!secret) {
      add("AUTH", false, secret.error().one_line());
      return;
    }
    std::string password;
    if (auto d = kube::base64_decode(base::string_at(*secret, "/data/password"))) password = *d;
    auto roles = etcd_->user_get("root");
    bool has_root_role = roles && std::find(roles->begin(), roles->end(), "root") != roles->end();
    auto enabled = live_auth_enabled(*etcd_);
    if (!enabled) {
      add("AUTH", false, enabled.error().one_line());
      return;
    }
    if (!*enabled) {
      add("AUTH", has_root_role && !password.empty(),
          has_root_role ? "auth is off until the operator enables it; user root exists with role root"
                        : "user root with role root is missing: re-run adopt --apply");
      return;
    }
    etcd::Config config = target_.config;
    config.user = "root";
    config.password = password;
    // The client certificate stays (etcd may require one); Authenticate
    // checks the password whatever the certificate says.
    auto login = etcd::Client::create(config);
    base::Status s = login ? (*login)->authenticate("root", password) : base::Status(login.error());
    add("AUTH", s.ok(), s.ok() ? "root logs in with the password of Secret " + secret_name
                               : "root cannot log in with the Secret's password: " + s.error().one_line());
  }

  kube::Client& k_;
  json cluster_;
  const VerifyRequest& request_;
  Webhooks& webhooks_;
  RecordedFacts facts_;
  ClusterVerification v_;
  admin::Target target_;
  std::unique_ptr<etcd::Client> etcd_;
  std::map<std::string, json> pvcs_;
};

}  // namespace

base::Result<VerifyReport> verify_adoption(kube::Client& client, const VerifyRequest& request) {
  auto list = client.list_all(op::resources::etcdclusters, request.ns);
  if (!list) return list.error();
  std::vector<json> adopted;
  std::set<std::string> namespaces;
  for (const auto& c : base::array_at(*list, "/items")) {
    if (op::annotation(c, op::kAnnAdoptedFrom).empty()) continue;
    if (!request.name.empty() && base::string_at(c, "/metadata/name") != request.name) continue;
    adopted.push_back(c);
    namespaces.insert(base::string_at(c, "/metadata/namespace"));
  }
  if (adopted.empty()) {
    return base::make_error(base::ErrorKind::NotFound,
                           "no adopted EtcdCluster" + (request.name.empty() ? std::string() : " named " + request.name) +
                               (request.ns.empty() ? " in any namespace" : " in namespace " + request.ns),
                           {}, "adopt it first with etcd-migrate adopt --apply");
  }
  if (!request.name.empty() && request.ns.empty() && namespaces.size() > 1) {
    std::string list_ns;
    for (const auto& n : namespaces) list_ns += (list_ns.empty() ? "" : ", ") + n;
    return base::make_error(base::ErrorKind::Usage, "EtcdCluster " + request.name + " exists in several namespaces (" + list_ns + ")",
                           {}, "give -n NAMESPACE");
  }
  VerifyReport report;
  Webhooks webhooks(client);
  for (const auto& c : adopted) report.clusters.push_back(Verifier(client, c, request, webhooks).run());
  return report;
}

ojson to_json(const VerifyReport& report) {
  ojson clusters = ojson::array();
  for (const auto& c : report.clusters) {
    ojson checks = ojson::array();
    for (const auto& k : c.checks) checks.push_back({{"code", k.code}, {"ok", k.ok}, {"detail", k.detail}});
    ojson findings = ojson::array();
    for (const auto& f : c.findings) findings.push_back(admin::finding_json(f));
    ojson j = {{"namespace", c.ns}, {"name", c.name}, {"ok", c.ok()}, {"checks", checks}, {"findings", findings}};
    if (!c.legacy_terminating_since.empty()) {
      j["legacyTerminating"] = {{"since", c.legacy_terminating_since}, {"seconds", c.legacy_terminating_seconds}};
    }
    clusters.push_back(j);
  }
  return {{"kind", "AdoptionVerification"}, {"ok", report.ok()}, {"clusters", clusters}};
}

std::string verify_text(const VerifyReport& report) {
  std::ostringstream out;
  for (const auto& c : report.clusters) {
    out << "EtcdCluster " << c.ns << "/" << c.name << ": " << (c.ok() ? "verified" : "NOT verified") << "\n";
    for (const auto& k : c.checks) out << "  " << (k.ok ? "ok    " : "FAIL  ") << k.code << ": " << k.detail << "\n";
    for (const auto& f : c.findings) {
      out << "  " << (f.severity == admin::Severity::Error ? "FAIL  " : "note  ") << f.code
          << (f.member.empty() ? "" : " " + f.member) << ": " << f.message << "\n";
    }
  }
  return out.str();
}

}  // namespace migrate
