// The adoption pipeline's steps on etcd (migrate/adoption_pipeline.h):
// its client, authentication, the safety backup, and the facts verify needs.
#include "migrate/adoption_pipeline.h"

#include <chrono>

#include "base/json_at.h"
#include "etcd/errors.h"
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

// --- etcd -----------------------------------------------------------------------
base::Result<etcd::Client*> Pipeline::etcd_client() {
  if (etcd_) return etcd_.get();
  auto failed = [this](base::Error e) -> base::Result<etcd::Client*> {
    failed_part_ = "connect to etcd";
    return e;
  };
  // The material the plan's inspection read and dialled with (not read again).
  auto tls = plan_.legacy_tls.size() > index_ && plan_.legacy_tls[index_]
                 ? base::Result<etcd::TlsConfig>(*plan_.legacy_tls[index_])
                 : legacy_tls(k_, legacy_);
  if (!tls) return failed(std::move(tls).error());
  InspectOptions how;
  if (valid_.connect == Connect::PortForward) how.forwards = std::make_shared<kube::PortForwards>(k_.shared_transport());
  targets_ = etcd_targets(legacy_, plan_.inventory, *tls, how);
  if (targets_.empty()) return failed(base::make_error(base::ErrorKind::CannotConnect, "no Ready member pod to dial"));
  etcd::Config config = cluster_config(targets_);
  config.call_timeout = 10s;
  auto client = etcd::Client::create(config);
  if (!client) return failed(std::move(client).error());
  etcd_ = std::move(*client);
  return etcd_.get();
}

base::Result<base::StepAnswer> Pipeline::auth_step() {
  if (pods_reowned_) {
    // The pods already belong to the new EtcdCluster: auth is the new operator's.
    result_.backup = "not taken again: the pods already belong to the new EtcdCluster";
    return Answer::already();
  }
  if (!p_.live_auth && !p_.spec_auth) return Answer::quiet();
  auto client = etcd_client();
  if (!client) return std::move(client).error();
  etcd::Client& c = **client;
  auto enabled = live_auth_enabled(c);
  if (!enabled) return std::move(enabled).error();
  bool acted = false;
  if (*enabled) {
    if (auto s = c.auth_disable(); !s) return std::move(s).error();
    auth_disabled_by_us_ = true;
    acted = true;
  }
  if (p_.spec_auth) {
    // docs/rules.md#root-user-replaced: the password cannot be read back, so replacing root is the
    // idempotent form; a kill between delete and add leaves no root and
    // auth off, and the re-run adds it.
    if (auto s = c.user_delete("root"); !s && s.error().reason != etcd::reason::kUserNotFound) {
      return std::move(s).error();
    }
    auto added = c.user_add("root", password_);
    if (!added && added.error().reason == etcd::reason::kUserExists) {
      // Our own add, its answer lost and the call asked of another member
      // (docs/server-faults.md#lost-answers-to-etcds-writes), or someone
      // else's: which one cannot be read back, so root is replaced once more.
      if (auto s = c.user_delete("root"); !s && s.error().reason != etcd::reason::kUserNotFound) {
        return std::move(s).error();
      }
      added = c.user_add("root", password_);
    }
    if (!added) return std::move(added).error();
    if (auto s = c.user_grant_role("root", "root"); !s) return std::move(s).error();
    acted = true;
    result_.auth = "off; root's password is the Secret " + p_.root_secret_name + "'s; the new operator turns auth on";
  } else {
    result_.auth = *enabled ? "disabled (the legacy spec says enableAuth: false, W20)" : "";
  }
  return Answer::did_if(acted);
}

void Pipeline::restore_auth_if_needed() {
  if (!auth_disabled_by_us_ || !etcd_) return;
  auto s = etcd_->auth_enable();
  if (s) {
    result_.auth = "re-enabled after the failure (R3)";
    result_.verdicts.push_back({"R3", "the pipeline stopped after auth was disabled and before the pods changed "
                                      "owner; auth was re-enabled"});
  } else {
    result_.auth = "OFF: re-enabling it failed: " + s.error().one_line() + "; re-run to finish the adoption";
  }
  auth_disabled_by_us_ = false;
}

base::Result<base::StepAnswer> Pipeline::backup_step() {
  if (pods_reowned_) return Answer::quiet();  // the auth step said why
  if (request_.skip_backup) {
    result_.backup = "skipped (--skip-backup)";
    return Answer::quiet();
  }
  base::Result<std::string> taken = std::string();
  if (valid_.backup_mode == BackupMode::Job) {
    taken = backup_.by_job();
  } else {
    auto client = etcd_client();
    if (!client) return std::move(client).error();
    taken = backup_.stream(**client, targets_);
  }
  if (!taken) return std::move(taken).error();  // Interrupted: a stop, which the engine tells apart
  result_.backup = std::move(*taken);
  return Answer::did();
}

// Facts verify needs, recorded before anything changes owner (docs/rules.md#our-annotation-keys,
// docs/rules.md#controllerrevisions, docs/rules.md#verify-data-check).
base::Result<ojson> Pipeline::adoption_facts() {
  auto client = etcd_client();
  if (!client) return std::move(client).error();
  auto failed = [this](base::Error e) -> base::Result<ojson> {
    failed_part_ = "record adoption facts";
    return e;
  };
  etcd::Client& c = **client;
  ojson facts = {{"legacyUID", p_.legacy_uid}, {"clusterID", p_.cluster_id}};
  auto head = c.range("\x01-adoption-revision-probe");
  if (!head) return failed(std::move(head).error());
  facts["revision"] = head->header.revision;
  ojson members = ojson::object();
  for (std::size_t i = 0; i < p_.member_names.size(); ++i) {
    const std::string& m = p_.member_names[i];
    ojson f = {{"memberID", p_.member_statuses[i]["memberID"]}};
    if (const json* pod = find_object(plan_.inventory.pods, p_.ns, m)) {
      f["podUID"] = base::string_at(*pod, "/metadata/uid");
      long long restarts = 0;
      if (const json* st = base::find_at(*pod, "/status/containerStatuses"); st && st->is_array()) {
        for (const auto& cs : *st) restarts += base::int_at(cs, "/restartCount");
      }
      f["restarts"] = restarts;
    }
    if (const json* pvc = find_object(plan_.inventory.pvcs, p_.ns, op::member_pvc(m))) {
      f["volumeName"] = base::string_at(*pvc, "/spec/volumeName");
    }
    for (const auto& t : targets_) {
      if (t.pod != m) continue;
      auto h = c.hash_kv(t.config.endpoints.front(), head->header.revision);
      if (h) f["hashKV"] = h->hash;
    }
    members[m] = f;
  }
  facts["members"] = members;
  ojson revisions = ojson::array();
  // A StatefulSet's revisions carry its pod template's labels, the legacy
  // selector among them: only this cluster's are listed, not the namespace's.
  kube::ListOptions lo;
  lo.label_selector = op::legacy_selector(p_.name);
  auto list = k_.list_all(kube::resources::controllerrevisions, p_.ns, lo);
  if (!list) return failed(std::move(list).error());
  for (const auto& cr : base::array_at(*list, "/items")) {
    const json* ctrl = op::controller_of(cr);
    if (ctrl != nullptr && base::string_at(*ctrl, "/kind") == "StatefulSet" && base::string_at(*ctrl, "/name") == p_.name) {
      revisions.push_back(base::string_at(cr, "/metadata/name"));
    }
  }
  facts["controllerRevisions"] = revisions;
  return facts;
}

}  // namespace migrate
