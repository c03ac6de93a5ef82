// Over 600 lines on purpose, for now: one Pipeline per legacy cluster whose
// steps share the facts earlier steps established (auth disabled by us, the
// backup taken, the pods re-owned), and crash-safety depends on their order
// (docs/adoption-design.md). It is to move onto the step engine member
// surgery will share (ARCHITECTURE.md); apply_text.cc renders its report.
#include "migrate/apply.h"

#include <openssl/rand.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <thread>

#include "backup/s3_client.h"
#include "backup/stream_backup.h"
#include "base/json_at.h"
#include "base/outcome.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/base64.h"
#include "kube/deletion.h"
#include "migrate/backup_target.h"
#include "migrate/inspect.h"
#include "migrate/job_backup.h"
#include "migrate/legacy_webhooks.h"
#include "migrate/ownership.h"
#include "operator/backup_names.h"
#include "operator/legacy_cluster.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;
using namespace std::chrono_literals;

const char* outcome_name(ClusterOutcome o) {
  switch (o) {
    case ClusterOutcome::Adopted: return "Adopted";
    case ClusterOutcome::Blocked: return "Blocked";
    case ClusterOutcome::Failed: return "Failed";
    case ClusterOutcome::Interrupted: return "Interrupted";
  }
  return "Failed";
}

std::string generate_password() {
  unsigned char raw[24];
  if (RAND_bytes(raw, sizeof raw) != 1) return {};
  std::string b64 = kube::base64_encode(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
  for (char& ch : b64) {
    if (ch == '+') ch = '-';
    if (ch == '/') ch = '_';
  }
  return b64;
}

namespace {

// A step failed; carries the one-line reason up to the pipeline.
struct StepError {
  std::string step;
  base::Error error;
};


class Pipeline {
 public:
  Pipeline(kube::Client& client, const AdoptionPlan& plan, size_t index, const AdoptRequest& request,
           const ValidRequest& valid, const ApplyHooks& hooks)
      : k_(client),
        plan_(plan),
        p_(plan.clusters[index]),
        index_(index),
        legacy_(op::LegacyCluster::from(plan.inventory.clusters[index])),
        request_(request),
        valid_(valid),
        hooks_(hooks) {
    result_.ns = p_.ns;
    result_.name = p_.name;
  }

  ClusterResult run() {
    if (p_.action != ClusterAction::Adopt) {
      result_.outcome = p_.action == ClusterAction::Adopted ? ClusterOutcome::Adopted : ClusterOutcome::Blocked;
      if (p_.action == ClusterAction::Adopted) result_.steps.push_back("adopted by an earlier run");
      return result_;
    }
    try {
      run_steps();
      result_.outcome = ClusterOutcome::Adopted;
      pending_delete_ = true;
    } catch (const Stop&) {
      result_.outcome = ClusterOutcome::Interrupted;
      restore_auth_if_needed();
    } catch (const StepError& e) {
      result_.outcome = ClusterOutcome::Failed;
      result_.error = e.step + ": " + e.error.one_line();
      restore_auth_if_needed();
    }
    return result_;
  }

  // The last step, the orphan delete of the legacy EtcdCluster, runs once
  // every pipeline of the run got that far: the legacy webhooks that would
  // refuse the garbage collector's finalizer removal may go first.
  bool pending_delete() const { return pending_delete_; }
  ClusterResult finish() {
    pending_delete_ = false;
    try {
      legacy_delete_step();
    } catch (const Stop&) {
      result_.outcome = ClusterOutcome::Interrupted;
    } catch (const StepError& e) {
      result_.outcome = ClusterOutcome::Failed;
      result_.error = e.step + ": " + e.error.one_line();
    }
    return result_;
  }
  // Stopped by a signal before the last step: a re-run does it.
  ClusterResult unfinished() {
    pending_delete_ = false;
    result_.outcome = ClusterOutcome::Interrupted;
    return result_;
  }

 private:
  struct Stop {};

  void progress(const std::string& what) {
    if (hooks_.progress) hooks_.progress(p_.ns + "/" + p_.name + ": " + what);
  }
  void check_stop() {
    if (hooks_.stop != nullptr && hooks_.stop->load() != 0) throw Stop{};
  }
  void done(const std::string& step, bool acted) {
    result_.steps.push_back(step + (acted ? ": done" : ": already done"));
    if (acted) progress(step + " done");
    if (hooks_.after_step) hooks_.after_step(p_.ns + "/" + p_.name, step);
    check_stop();
  }
  [[noreturn]] void fail(const std::string& step, base::Error e) { throw StepError{step, std::move(e)}; }
  template <class T>
  T must(const std::string& step, base::Result<T> r) {
    if (!r) fail(step, std::move(r).error());
    return std::move(*r);
  }

  void run_steps() {
    check_stop();
    bool pods_reowned = pods_have_new_owner();
    // What could fail later is checked before auth is touched (docs/rules.md#auth-restored-on-early-failure).
    if (!pods_reowned && !request_.skip_backup) backup_prerequisites();
    root_secret();
    if (!pods_reowned) {
      auth_step();
      backup_step();
    } else {
      result_.backup = "not taken again: the pods already belong to the new EtcdCluster";
      done("auth", false);
    }
    std::string cluster_uid = cluster_step();
    auto member_uids = members_step(cluster_uid);
    headless_step(member_uids);
    statefulset_step();
    // The pods change owner right after the StatefulSet's delete was
    // accepted, while its ControllerRevisions still exist: a sync of the
    // terminating StatefulSet that finds none would write a new one
    // (docs/adoption-reown.md).
    reown_step(member_uids);
    leftovers_step();
    // docs/rules.md#auth-restored-on-early-failure: once the pods belong to the new cluster, auth stays off for the
    // new operator to turn on; a later failure no longer restores it.
    auth_disabled_by_us_ = false;
    service_step(cluster_uid);
  }

  // --- prerequisites and credentials ------------------------------------------
  // The destinations answer before anything changes: the directory is
  // writable; the S3 credentials are there and the bucket takes them (a bad
  // credential, a missing bucket or a wrong endpoint fail here, fast).
  void backup_prerequisites() {
    const std::string step = "prerequisites";
    if (!request_.backup_dir.empty()) {
      std::error_code ec;
      if (!std::filesystem::is_directory(request_.backup_dir, ec) || ::access(request_.backup_dir.c_str(), W_OK) != 0) {
        fail(step, base::make_error(base::ErrorKind::Refused, "is not a writable directory",
                                   "--backup-dir " + request_.backup_dir, "create it first"));
      }
    }
    if (valid_.backup_mode == BackupMode::Job) {
      // Job mode (docs/rules.md#backup-job): the Secret or PVC is there and the image known, before auth.
      if (auto s = check_job_destination(k_, p_.ns, request_); !s) fail(step, s.error());
      agent_image_ = must(step, agent_image(k_, request_, valid_.new_controller));
      return;
    }
    if (valid_.s3 && valid_.backup_mode == BackupMode::Stream) {
      s3_ = must(step, s3_destination(k_, p_.ns, request_));
      backup::S3ClientOptions o;
      o.attempts = 1;  // a check: the user wants its answer now
      auto client = must(step, backup::S3Client::create(s3_->location, s3_->credentials, o));
      const std::string key =
          op::snapshot_object_key(s3_->key_prefix, op::migration_snapshot_file(p_.ns, p_.name));
      if (auto s = client->check_access(key); !s) fail(step, s.error());
    }
  }

  bool pods_have_new_owner() {
    if (p_.member_names.empty()) return false;
    for (const auto& m : p_.member_names) {
      const json* pod = find_object(plan_.inventory.pods, p_.ns, m);
      const json* ctrl = pod != nullptr ? op::controller_of(*pod) : nullptr;
      if (ctrl == nullptr || ctrl->value("kind", "") != op::kKindEtcdMember) return false;
    }
    return true;
  }

  std::string secret_password(const json& secret) {
    const json* data = base::find_at(secret, "/data");
    if (data == nullptr || !data->contains("password") || !(*data)["password"].is_string()) return {};
    auto decoded = kube::base64_decode((*data)["password"].get<std::string>());
    return decoded ? *decoded : std::string();
  }

  void root_secret() {
    if (!p_.spec_auth) return;
    const std::string step = "root-credentials";
    const std::string object = "secret \"" + p_.ns + "/" + p_.root_secret_name + "\"";
    if (p_.root_secret) {
      // The plan found none: create it straight away. The answer is the
      // stored object; AlreadyExists (a concurrent run) is read below.
      json secret = *p_.root_secret;
      std::string generated = generate_password();
      if (generated.empty()) fail(step, base::make_error(base::ErrorKind::Failed, "no randomness for a password"));
      secret["stringData"]["password"] = generated;
      auto created = k_.create(kube::resources::secrets, p_.ns, secret);
      if (created) {
        password_ = secret_password(*created);
        if (password_.empty()) fail(step, base::make_error(base::ErrorKind::Failed, "has no password after its creation", object));
        done(step, true);
        return;
      }
      if (!kube::is_already_exists(created.error())) fail(step, created.error());
    }
    // It exists: the stored password is the one that counts.
    auto existing = k_.get(kube::resources::secrets, p_.ns, p_.root_secret_name);
    if (!existing) {
      if (!kube::is_not_found(existing.error())) fail(step, existing.error());
      fail(step, base::make_error(base::ErrorKind::Refused, "does not exist", object,
                                 "create it with a password key (--auth-secret)"));
    }
    password_ = secret_password(*existing);
    if (password_.empty()) {
      fail(step, base::make_error(base::ErrorKind::Refused, "has no password", object,
                                 "give it a non-empty password key, or delete it to have one generated"));
    }
    done(step, false);
  }

  // --- etcd -----------------------------------------------------------------------
  etcd::Client& etcd_client() {
    if (etcd_) return *etcd_;
    const std::string step = "connect to etcd";
    // The material the plan's inspection read and dialled with (not read again).
    auto tls = plan_.legacy_tls.size() > index_ && plan_.legacy_tls[index_] ? base::Result<etcd::TlsConfig>(*plan_.legacy_tls[index_])
                                                                         : legacy_tls(k_, legacy_);
    if (!tls) fail(step, tls.error());
    InspectOptions how;
    if (valid_.connect == Connect::PortForward) how.forwards = std::make_shared<kube::PortForwards>(k_.shared_transport());
    targets_ = etcd_targets(legacy_, plan_.inventory, *tls, how);
    if (targets_.empty()) fail(step, base::make_error(base::ErrorKind::CannotConnect, "no Ready member pod to dial"));
    etcd::Config config = cluster_config(targets_);
    config.call_timeout = 10s;
    etcd_ = must(step, etcd::Client::create(config));
    return *etcd_;
  }

  void auth_step() {
    if (!p_.live_auth && !p_.spec_auth) return;
    const std::string step = "auth";
    etcd::Client& c = etcd_client();
    bool enabled = must(step, live_auth_enabled(c));
    bool acted = false;
    if (enabled) {
      if (auto s = c.auth_disable(); !s) fail(step, s.error());
      auth_disabled_by_us_ = true;
      acted = true;
    }
    if (p_.spec_auth) {
      // docs/rules.md#root-user-replaced: the password cannot be read back, so replacing root is the
      // idempotent form; a kill between delete and add leaves no root and
      // auth off, and the re-run adds it.
      if (auto s = c.user_delete("root"); !s && s.error().reason != etcd::reason::kUserNotFound) fail(step, s.error());
      if (auto s = c.user_add("root", password_); !s) fail(step, s.error());
      if (auto s = c.user_grant_role("root", "root"); !s) fail(step, s.error());
      acted = true;
      result_.auth = "off; root's password is the Secret " + p_.root_secret_name + "'s; the new operator turns auth on";
    } else {
      result_.auth = enabled ? "disabled (the legacy spec says enableAuth: false, W20)" : "";
    }
    done(step, acted);
  }

  void restore_auth_if_needed() {
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

  void backup_step() {
    const std::string step = "backup";
    if (request_.skip_backup) {
      result_.backup = "skipped (--skip-backup)";
      return;
    }
    if (valid_.backup_mode == BackupMode::Job) {
      job_backup_step();
      return;
    }
    etcd::Client& c = etcd_client();
    backup::StreamBackupRequest req;
    req.ns = p_.ns;
    req.cluster = p_.name;
    req.cluster_uid = p_.legacy_uid;
    for (const auto& t : targets_) req.endpoints.push_back(t.config.endpoints.front());
    req.dir = request_.backup_dir;
    req.s3 = s3_;
    if (valid_.backup_timeout.count() > 0) req.deadline = std::chrono::system_clock::now() + valid_.backup_timeout;
    if (hooks_.transfer) {
      const std::string cluster = p_.ns + "/" + p_.name;
      req.progress = [this, cluster](const std::string& endpoint, std::uint64_t done, std::uint64_t total) {
        hooks_.transfer(cluster, endpoint, done, total);
      };
    }
    req.cancelled = [this] { return hooks_.stop != nullptr && hooks_.stop->load() != 0; };
    progress("backup: streaming a snapshot to " + backup_destinations());
    auto r = backup::stream_backup(c, req);
    if (!r && r.error().kind == base::ErrorKind::Interrupted) throw Stop{};
    if (!r) fail(step, std::move(r).error());
    std::string where;
    for (const auto& d : r->destinations) where += (where.empty() ? "" : " and ") + d;
    result_.backup = where + " (" + std::to_string(r->bytes) + " bytes, sha256 " + r->sha256 + ", revision " +
                     std::to_string(r->revision) + ", from " + r->endpoint + ")";
    done(step, true);
  }

  void job_backup_step() {
    const std::string step = "backup";
    backup::BackupJobSpec spec;
    spec.ns = p_.ns;
    spec.cluster = p_.name;
    spec.cluster_uid = p_.legacy_uid;
    spec.client_service = legacy_.client_service();
    spec.agent_image = agent_image_;
    spec.timeout = std::chrono::duration_cast<std::chrono::seconds>(valid_.backup_timeout);
    spec.server_secret = legacy_.tls_secret("serverSecret");
    spec.server_trusted_ca_secret = legacy_.tls_secret("serverTrustedCASecret");
    spec.client_secret = legacy_.tls_secret("clientSecret");
    std::string where;
    const std::string file = op::migration_snapshot_file(p_.ns, p_.name);
    if (valid_.pvc) {
      spec.pvc = backup::BackupJobPvc{request_.pvc_claim, request_.pvc_subpath};
      std::string sub = request_.pvc_subpath.empty() ? "" : "/" + request_.pvc_subpath;
      where = "PVC " + request_.pvc_claim + ":" + sub + "/" + file;
    } else {
      spec.s3 = backup::BackupJobS3{request_.s3_endpoint, request_.s3_bucket, request_.s3_key, request_.s3_region,
                                    request_.s3_force_path_style, request_.s3_credentials_secret};
      where = backup::s3_uri(request_.s3_bucket, op::snapshot_object_key(request_.s3_key, file));
    }
    JobBackupOptions o;
    if (valid_.backup_timeout.count() > 0) o.timeout = valid_.backup_timeout;
    o.cancelled = [this] { return hooks_.stop != nullptr && hooks_.stop->load() != 0; };
    o.progress = [this](const std::string& line) { progress(line); };
    progress("backup: a Job of the snapshot agent writes " + where);
    auto r = run_backup_job(k_, spec, o);
    if (!r && r.error().kind == base::ErrorKind::Interrupted) throw Stop{};
    if (!r) fail(step, std::move(r).error());
    result_.backup = where + " (by Job " + r->job + ", " + r->how + ")";
    done(step, true);
  }

  std::string backup_destinations() const {
    std::string out;
    if (!request_.backup_dir.empty()) out = request_.backup_dir;
    if (s3_) {
      const std::string key = op::snapshot_object_key(s3_->key_prefix, op::migration_snapshot_file(p_.ns, p_.name));
      out += (out.empty() ? "" : " and ") + backup::s3_uri(s3_->location.bucket, key);
    }
    return out;
  }

  // Facts verify needs, recorded before anything changes owner (docs/rules.md#our-annotation-keys,
  // docs/rules.md#controllerrevisions, docs/rules.md#verify-data-check).
  ojson adoption_facts() {
    const std::string step = "record adoption facts";
    ojson facts = {{"legacyUID", p_.legacy_uid}, {"clusterID", p_.cluster_id}};
    etcd::Client& c = etcd_client();
    auto head = must(step, c.range("\x01-adoption-revision-probe"));
    facts["revision"] = head.header.revision;
    ojson members = ojson::object();
    for (size_t i = 0; i < p_.member_names.size(); ++i) {
      const std::string& m = p_.member_names[i];
      ojson f = {{"memberID", p_.member_statuses[i]["memberID"]}};
      if (const json* pod = find_object(plan_.inventory.pods, p_.ns, m)) {
        f["podUID"] = base::string_at(*pod, "/metadata/uid");
        long long restarts = 0;
        if (const json* st = base::find_at(*pod, "/status/containerStatuses"); st && st->is_array()) {
          for (const auto& cs : *st) restarts += cs.value("restartCount", 0LL);
        }
        f["restarts"] = restarts;
      }
      if (const json* pvc = find_object(plan_.inventory.pvcs, p_.ns, op::member_pvc(m))) {
        f["volumeName"] = base::string_at(*pvc, "/spec/volumeName");
      }
      for (const auto& t : targets_) {
        if (t.pod != m) continue;
        auto h = c.hash_kv(t.config.endpoints.front(), head.header.revision);
        if (h) f["hashKV"] = h->hash;
      }
      members[m] = f;
    }
    facts["members"] = members;
    ojson revisions = ojson::array();
    kube::ListOptions lo;
    auto list = must(step, k_.list_all(kube::resources::controllerrevisions, p_.ns, lo));
    for (const auto& cr : list["items"]) {
      const json* ctrl = op::controller_of(cr);
      if (ctrl != nullptr && ctrl->value("kind", "") == "StatefulSet" && ctrl->value("name", "") == p_.name) {
        revisions.push_back(base::string_at(cr, "/metadata/name"));
      }
    }
    facts["controllerRevisions"] = revisions;
    return facts;
  }

  // --- new objects ------------------------------------------------------------------
  std::string cluster_step() {
    const std::string step = "etcdcluster";
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
      if (!kube::is_not_found(existing.error())) fail(step, existing.error());
      json object = json(p_.cluster);
      object["metadata"]["annotations"][std::string(op::kAnnAdoption)] = adoption_facts().dump();
      auto created = k_.create(op::resources::etcdclusters, p_.ns, object);
      if (!created && !kube::is_already_exists(created.error())) fail(step, created.error());
      cluster = created ? *created : must(step, k_.get(op::resources::etcdclusters, p_.ns, p_.name));
      acted = true;
    }
    // Only our own object for this legacy cluster (docs/rules.md#only-our-own-objects).
    if (op::annotation(cluster, op::kAnnAdoptedFrom) != p_.legacy_uid) {
      fail(step, base::make_error(base::ErrorKind::Refused, "exists without this tool's marker for this legacy cluster",
                                 "etcdcluster \"" + p_.ns + "/" + p_.name + "\"", "B17: it is not ours to adopt into"));
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
      if (!kube::is_conflict(r.error()) || attempt > 5) fail(step, r.error());
      cluster = must(step, k_.get(op::resources::etcdclusters, p_.ns, p_.name));
    }
    std::string id = base::string_at(cluster, "/status/clusterID");
    if (id != p_.cluster_id) {
      fail(step, base::make_error(base::ErrorKind::Refused, "records cluster ID " + id + " but etcd reports " + p_.cluster_id,
                                 "etcdcluster \"" + p_.ns + "/" + p_.name + "\""));
    }
    cluster_ = cluster;
    done(step, acted);
    return base::string_at(cluster, "/metadata/uid");
  }

  std::vector<std::pair<std::string, std::string>> members_step(const std::string& cluster_uid) {
    const std::string step = "etcdmembers";
    std::vector<std::pair<std::string, std::string>> uids;
    bool acted = false;
    for (size_t i = 0; i < p_.members.size(); ++i) {
      const std::string& m = p_.member_names[i];
      json member = json(p_.members[i]);
      member["metadata"]["ownerReferences"][0]["uid"] = cluster_uid;
      // As the cluster: created straight away when the plan found none.
      base::Result<json> got = base::make_error(base::ErrorKind::NotFound, "not found by the plan");
      if (find_object(plan_.inventory.new_members, p_.ns, m) != nullptr) got = k_.get(op::resources::etcdmembers, p_.ns, m);
      if (!got) {
        if (!kube::is_not_found(got.error())) fail(step, got.error());
        auto created = k_.create(op::resources::etcdmembers, p_.ns, member);
        if (!created && !kube::is_already_exists(created.error())) fail(step, created.error());
        got = created ? std::move(created) : k_.get(op::resources::etcdmembers, p_.ns, m);
        if (!got) fail(step, got.error());
        acted = true;
      }
      json live = *got;
      const json* ctrl = op::controller_of(live);
      if (ctrl == nullptr || ctrl->value("uid", "") != cluster_uid) {
        fail(step, base::make_error(base::ErrorKind::Refused, "is not controlled by the adopted EtcdCluster",
                                   "etcdmember \"" + p_.ns + "/" + m + "\"", "B17: it is not ours to take over"));
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
        if (!kube::is_conflict(r.error()) || attempt > 5) fail(step, r.error());
        live = must(step, k_.get(op::resources::etcdmembers, p_.ns, m));
      }
      uids.push_back({m, base::string_at(live, "/metadata/uid")});
    }
    done(step, acted);
    return uids;
  }

  // --- the legacy objects -------------------------------------------------------------
  void headless_step(const std::vector<std::pair<std::string, std::string>>& member_uids) {
    const std::string step = "headless-service";
    // The plan's copy first; gone means collected after an earlier complete run.
    const json* known = find_object(plan_.inventory.services, p_.ns, p_.headless_service);
    const bool acted = set_service_owners(step, p_.headless_service, known, [&](const json& svc) {
      return headless_owner_references(svc, member_uids);
    });
    done(step, acted);
  }

  // Sets Service `name`'s ownerReferences to owners(service) with a PUT,
  // reading it again on a conflict; the first read may be a copy the run
  // already has (`known`), whose resourceVersion guards the write. A Service
  // that is gone is left alone. Returns whether it wrote.
  bool set_service_owners(const std::string& step, const std::string& name, const json* known,
                          const std::function<json(const json&)>& owners) {
    for (int attempt = 0;; ++attempt) {
      auto svc = attempt == 0 && known != nullptr ? base::Result<json>(*known)
                                                  : k_.get(kube::resources::services, p_.ns, name);
      if (!svc) {
        if (kube::is_not_found(svc.error())) return false;
        fail(step, svc.error());
      }
      json refs = owners(*svc);
      if ((*svc)["metadata"].value("ownerReferences", json::array()) == refs) return false;
      json updated = *svc;
      updated["metadata"]["ownerReferences"] = refs;
      auto r = k_.replace(kube::resources::services, p_.ns, updated);
      if (r) return true;
      if (!kube::is_conflict(r.error()) || attempt > 5) fail(step, r.error());
    }
  }

  // Orphan-deletes StatefulSet <c> and waits only until the delete is
  // accepted (a deletionTimestamp and the `orphan` finalizer), not until the
  // garbage collector has let it go: a StatefulSet being deleted neither
  // claims nor creates pods, so the re-own that follows can take the pods
  // from it, after which the collector has nothing left to orphan
  // (docs/adoption-reown.md).
  void statefulset_step() {
    const std::string step = "statefulset";
    bool acted = false;
    // The pods name their StatefulSet's UID: deleted by it without reading
    // it first. A 409 (another object of that name now) reads it below.
    std::string uid;
    for (const auto& m : p_.member_names) {
      const json* pod = find_object(plan_.inventory.pods, p_.ns, m);
      const json* ctrl = pod != nullptr ? op::controller_of(*pod) : nullptr;
      if (ctrl != nullptr && ctrl->value("kind", "") == "StatefulSet" && ctrl->value("name", "") == p_.name) {
        uid = ctrl->value("uid", "");
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
        fail(step, r.error());
      }
    }
    if (!acted && !gone) {
      auto sts = k_.get(kube::resources::statefulsets, p_.ns, p_.name);
      if (sts) {
        o.precondition_uid = base::string_at(*sts, "/metadata/uid");
        auto r = k_.remove(kube::resources::statefulsets, p_.ns, p_.name, o);
        if (r) answer = std::move(*r);
        else if (kube::is_not_found(r.error())) gone = true;
        else fail(step, r.error());
        acted = true;
      } else if (kube::is_not_found(sts.error())) {
        gone = true;
      } else {
        fail(step, sts.error());
      }
    }
    const bool accepted = gone || (answer.is_object() && answer.value("kind", "") != "Status" &&
                                   kube::orphan_delete_accepted(&answer));
    if (!accepted) {
      // Not shown by the answer: read until it is (or the object is gone).
      auto w = k_.wait_for(kube::resources::statefulsets, p_.ns, p_.name, kube::orphaning_or_gone(), 120s);
      if (!w) fail(step, w.error());
    }
    done(step, acted);
  }

  void leftovers_step() {
    const std::string step = "legacy-leftovers";
    bool acted = false;
    // The StatefulSet's ControllerRevisions, by the names recorded (docs/rules.md#controllerrevisions).
    json facts = json::parse(op::annotation(cluster_, op::kAnnAdoption), nullptr, false);
    std::vector<std::pair<const kube::Resource*, std::string>> todo;
    if (facts.is_object()) {
      for (const auto& name : facts.value("controllerRevisions", json::array())) {
        todo.push_back({&kube::resources::controllerrevisions, name.get<std::string>()});
      }
    }
    todo.push_back({&kube::resources::configmaps, op::legacy_cluster_state_configmap(p_.name)});
    todo.push_back({&kube::resources::poddisruptionbudgets, p_.name});
    for (const auto& [r, name] : todo) {
      if (r == &kube::resources::poddisruptionbudgets) {
        // The operator creates its own PDB of that name later: only the legacy one goes.
        auto pdb = k_.get(*r, p_.ns, name);
        if (!pdb) {
          if (kube::is_not_found(pdb.error())) continue;
          fail(step, pdb.error());
        }
        const json* ctrl = op::controller_of(*pdb);
        if (ctrl != nullptr && ctrl->value("apiVersion", "") == op::kApiVersion) continue;
      }
      auto res = k_.remove(*r, p_.ns, name);
      if (res) acted = true;
      else if (!kube::is_not_found(res.error())) fail(step, res.error());
    }
    done(step, acted);
  }

  void reown_step(const std::vector<std::pair<std::string, std::string>>& member_uids) {
    const std::string step = "pods-and-pvcs";
    bool acted = false;
    // Read now, after the StatefulSet's orphan delete was accepted: one list
    // of each kind (the plan's selector) instead of a read per object; an
    // object the lists miss, or a conflict, is read on its own. The garbage
    // collector may be orphaning the same objects meanwhile: a strategic
    // merge patch deletes the old controller reference by its uid and merges
    // ours, so its write and ours commute (no 409 to read again after).
    kube::ListOptions etcd_pods;
    etcd_pods.label_selector = std::string(op::kLabelName) + "=" + std::string(op::kLabelNameValue);
    json pods = must(step, k_.list_all(kube::resources::pods, p_.ns, etcd_pods));
    json pvcs = must(step, k_.list_all(kube::resources::persistentvolumeclaims, p_.ns));
    auto listed = [&](const json& list, const std::string& name) -> const json* {
      const json* items = base::find_at(list, "/items");
      if (items == nullptr || !items->is_array()) return nullptr;
      for (const auto& o : *items) {
        if (base::string_at(o, "/metadata/name") == name) return &o;
      }
      return nullptr;
    };
    for (const auto& [m, uid] : member_uids) {
      for (auto [r, name, role] : {std::tuple{&kube::resources::pods, m, true},
                                   std::tuple{&kube::resources::persistentvolumeclaims, op::member_pvc(m), false}}) {
        const json* fresh = listed(role ? pods : pvcs, name);
        for (int attempt = 0;; ++attempt) {
          auto obj = attempt == 0 && fresh != nullptr ? *fresh : must(step, k_.get(*r, p_.ns, name));
          json patch = reown_strategic_patch(obj, p_.name, m, uid, role);
          if (patch.is_null()) break;
          kube::PatchOptions po;
          po.idempotent = true;  // deletes and merges by key: the same result when sent twice
          auto res = k_.patch(*r, p_.ns, name, kube::PatchType::Strategic, patch, po);
          if (res) {
            acted = true;
            break;
          }
          if (!kube::is_conflict(res.error()) || attempt > 10) fail(step, res.error());
        }
      }
    }
    done(step, acted);
  }

  void service_step(const std::string& cluster_uid) {
    const std::string step = "service";
    bool acted = false;
    const std::string& c = p_.name;
    json native = json(op::native_headless_service(c, p_.ns, cluster_uid));
    // Judged from the plan's copy: the delete is guarded by its UID (a
    // replaced Service answers 409 and fails the step; the re-run plans again).
    const json* known = find_object(plan_.inventory.services, p_.ns, c);
    bool deleted = false;
    if (known != nullptr && base::string_at(*known, "/spec/clusterIP") != "None") {
      // clusterIP cannot change in place: delete and re-create back to back.
      kube::DeleteOptions o;
      o.precondition_uid = base::string_at(*known, "/metadata/uid");
      auto r = k_.remove(kube::resources::services, p_.ns, c, o);
      if (!r && !kube::is_not_found(r.error())) fail(step, r.error());
      deleted = true;
    }
    if (known == nullptr || deleted) {
      auto created = k_.create(kube::resources::services, p_.ns, native);
      if (!created && deleted && kube::is_already_exists(created.error())) {
        // The deleted one is still going (a finalizer): wait, then create.
        if (auto s = k_.wait_deleted(kube::resources::services, p_.ns, c, 60s); !s) fail(step, s.error());
        created = k_.create(kube::resources::services, p_.ns, native);
      }
      if (!created && !kube::is_already_exists(created.error())) fail(step, created.error());
      acted = true;
    }
    if (p_.client_service != c) {
      // docs/rules.md#client-service-cutover: <cs> keeps serving, owned (not controlled) by the new EtcdCluster.
      bool wrote = set_service_owners(step, p_.client_service, nullptr, [&](const json& cs) {
        json refs = json::array();
        for (const auto& r : cs["metadata"].value("ownerReferences", json::array())) {
          if (r.value("kind", "") != op::kKindEtcdCluster) refs.push_back(r);
        }
        refs.push_back(json(op::owner_reference(op::kKindEtcdCluster, c, cluster_uid, false)));
        return refs;
      });
      acted = acted || wrote;
    }
    done(step, acted);
  }

  void legacy_delete_step() {
    const std::string step = "legacy-etcdcluster";
    bool acted = false;
    // The plan's copy says whether it is already being deleted; the delete
    // is guarded by the UID the plan was made for.
    if (base::find_at(plan_.inventory.clusters[index_], "/metadata/deletionTimestamp") == nullptr) {
      kube::DeleteOptions o;
      o.propagation = kube::Propagation::Orphan;
      o.precondition_uid = p_.legacy_uid;
      auto r = k_.remove(op::resources::legacy_etcdclusters, p_.ns, p_.name, o);
      if (!r && !kube::is_not_found(r.error())) fail(step, r.error());
      acted = r.ok();
    }
    // Not awaited (docs/rules.md#legacy-webhooks): it stays Terminating while the legacy webhooks exist.
    done(step, acted);
  }

  kube::Client& k_;
  const AdoptionPlan& plan_;
  const ClusterPlan& p_;
  size_t index_;
  op::LegacyCluster legacy_;
  const AdoptRequest& request_;
  const ValidRequest& valid_;
  const ApplyHooks& hooks_;
  ClusterResult result_;
  std::string password_;
  std::unique_ptr<etcd::Client> etcd_;
  std::optional<backup::S3Destination> s3_;  // stream mode's S3 destination, checked by the prerequisites
  std::string agent_image_;                  // job mode's image, resolved by the prerequisites
  std::vector<EtcdTarget> targets_;
  json cluster_;
  bool auth_disabled_by_us_ = false;
  bool pending_delete_ = false;
};

BackupResult apply_backup(kube::Client& k, const BackupPlan& b, const std::vector<ClusterResult>& clusters) {
  BackupResult r{b.kind, b.ns, b.name, "", ""};
  switch (b.action) {
    case BackupAction::Keep: r.outcome = "kept"; return r;
    case BackupAction::Wait: r.outcome = "waiting"; return r;
    case BackupAction::Print: r.outcome = "printed"; return r;
    case BackupAction::Error: r.outcome = "blocked"; return r;
    case BackupAction::Create:
    case BackupAction::Skip: break;
  }
  // docs/rules.md#legacy-backups: only for a cluster adopted in this run (or earlier).
  for (const auto& c : clusters) {
    if (c.ns == b.ns && c.name == b.cluster && c.outcome != ClusterOutcome::Adopted) {
      r.outcome = "waiting";
      r.error = "its cluster was not adopted in this run";
      return r;
    }
  }
  if (b.action == BackupAction::Create) {
    auto created = k.create(op::resources::etcdsnapshots, b.ns, json(b.objects.front()));
    if (!created && !kube::is_already_exists(created.error())) {
      r.outcome = "failed";
      r.error = created.error().one_line();
      return r;
    }
  }
  kube::DeleteOptions o;
  o.propagation = kube::Propagation::Background;
  auto del = k.remove(op::resources::legacy_etcdbackups, b.ns, b.name, o);
  if (!del && !kube::is_not_found(del.error())) {
    r.outcome = "failed";
    r.error = del.error().one_line();
    return r;
  }
  r.outcome = b.action == BackupAction::Create ? "created" : "skipped";
  return r;
}

// The legacy webhook configurations that cover the run's clusters go when
// every legacy EtcdCluster they cover is adopted: by this run (its pipeline
// reached the last step) or an earlier one (Terminating, our marker on its
// successor). Called before the legacy EtcdClusters are orphan-deleted, so
// the garbage collector's first try to drop the orphan finalizer succeeds.
void remove_webhooks(kube::Client& k, const AdoptionPlan& plan, const std::vector<ClusterResult>& results,
                     ApplyReport& report) {
  auto legacy = k.list_all(op::resources::legacy_etcdclusters, "");
  if (!legacy) {
    report.webhooks_note = "kept: cannot list legacy EtcdClusters: " + legacy.error().one_line();
    return;
  }
  auto fresh = k.list_all(op::resources::etcdclusters, "");
  if (!fresh) {
    report.webhooks_note = "kept: cannot list EtcdClusters: " + fresh.error().one_line();
    return;
  }
  auto run_index = [&](const json& l) -> std::optional<size_t> {
    for (size_t i = 0; i < plan.clusters.size(); ++i) {
      if (plan.clusters[i].ns == base::string_at(l, "/metadata/namespace") &&
          plan.clusters[i].name == base::string_at(l, "/metadata/name") &&
          plan.clusters[i].legacy_uid == base::string_at(l, "/metadata/uid")) {
        return i;
      }
    }
    return std::nullopt;
  };
  auto adopted = [&](const json& l) {
    if (auto i = run_index(l); i && results[*i].outcome == ClusterOutcome::Adopted) return true;
    std::string ns = base::string_at(l, "/metadata/namespace"), name = base::string_at(l, "/metadata/name");
    if (base::find_at(l, "/metadata/deletionTimestamp") == nullptr) return false;
    for (const auto& f : (*fresh)["items"]) {
      if (base::string_at(f, "/metadata/namespace") == ns && base::string_at(f, "/metadata/name") == name) {
        return op::annotation(f, op::kAnnAdoptedFrom) == base::string_at(l, "/metadata/uid");
      }
    }
    return false;
  };
  std::vector<std::pair<std::string, json>> configs;
  for (size_t i = 0; i < plan.legacy_webhooks.size() && i < plan.inventory.legacy_webhook_objects.size(); ++i) {
    configs.emplace_back(plan.legacy_webhooks[i], plan.inventory.legacy_webhook_objects[i]);
  }
  std::vector<json> items = (*legacy)["items"].get<std::vector<json>>();
  WebhookDecision d = decide_webhook_removal(configs, items, [&](const json& l) { return run_index(l).has_value(); },
                                             adopted);
  report.webhooks_note = d.reason;
  for (const auto& w : d.remove) {
    auto slash = w.find('/');
    const kube::Resource& r = w.substr(0, slash) == op::resources::mutating_webhooks.plural
                                  ? op::resources::mutating_webhooks
                                  : op::resources::validating_webhooks;
    auto res = k.remove(r, "", w.substr(slash + 1));
    if (res || kube::is_not_found(res.error())) report.webhooks_removed.push_back(w);
    else report.webhooks_note = "removing " + w + " failed: " + res.error().one_line();
  }
}

// The legacy EtcdClusters left Terminating behind legacy webhooks, and how
// the user ends the wait (docs/adoption-runbook.md, "Legacy webhooks").
void terminating_note(const AdoptionPlan& plan, ApplyReport& report) {
  std::vector<std::string> remaining;  // the configurations not removed
  for (const auto& w : plan.legacy_webhooks) {
    if (std::find(report.webhooks_removed.begin(), report.webhooks_removed.end(), w) == report.webhooks_removed.end()) {
      remaining.push_back(w);
    }
  }
  std::vector<std::string> covering;
  for (size_t i = 0; i < plan.clusters.size(); ++i) {
    const ClusterResult& r = report.clusters[i];
    if (r.outcome != ClusterOutcome::Adopted) continue;
    const json& l = plan.inventory.clusters[i];
    bool earlier = plan.clusters[i].action == ClusterAction::Adopted;
    bool behind = false;
    for (size_t w = 0; w < plan.legacy_webhooks.size() && w < plan.inventory.legacy_webhook_objects.size(); ++w) {
      if (std::find(remaining.begin(), remaining.end(), plan.legacy_webhooks[w]) == remaining.end()) continue;
      if (!webhook_covers(plan.inventory.legacy_webhook_objects[w], l)) continue;
      behind = true;
      if (std::find(covering.begin(), covering.end(), plan.legacy_webhooks[w]) == covering.end()) {
        covering.push_back(plan.legacy_webhooks[w]);
      }
    }
    // Adopted by an earlier run while the webhooks refused: the collector
    // is on its backoff even once they are gone.
    bool removed_late = earlier && !report.webhooks_removed.empty();
    if (behind || removed_late) report.legacy_terminating.push_back(r.ns + "/" + r.name);
  }
  if (report.legacy_terminating.empty()) return;
  std::string text;
  if (!covering.empty()) {
    std::string names;
    for (const auto& w : covering) names += " " + w;
    text = "they stay Terminating while the legacy webhook configurations" + names +
           " refuse the garbage collector's removal of their orphan finalizer. To end the wait: kubectl delete" + names +
           (report.webhooks_removed.empty() && !plan.legacy_webhooks.empty()
                ? " (or re-run with --remove-legacy-webhooks once every legacy EtcdCluster they cover is adopted)"
                : "") +
           "; ";
  } else {
    text = "the legacy webhook configurations that refused the garbage collector are gone; ";
  }
  std::string ns = "NAMESPACE", name = "NAME";
  if (report.legacy_terminating.size() == 1) {
    const std::string& only = report.legacy_terminating.front();
    ns = only.substr(0, only.find('/'));
    name = only.substr(only.find('/') + 1);
  }
  text += "the collector retries on its backoff, which reaches about 17 minutes after repeated refusals; to end "
          "it at once once the webhooks are gone, drop the finalizer (the collector already released what the "
          "object owned on its first try): kubectl -n " + ns + " patch etcdclusters." +
          std::string(op::kLegacyGroup) + " " + name + " --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'";
  report.end_wait = text;
}

}  // namespace

ApplyReport apply_plan(kube::Client& client, const AdoptionPlan& plan, const AdoptRequest& request,
                       const ValidRequest& valid, const ApplyHooks& hooks) {
  ApplyReport report;
  report.new_controller = plan.new_controller;
  report.clusters.resize(plan.clusters.size());
  std::vector<std::unique_ptr<Pipeline>> pipelines(plan.clusters.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < plan.clusters.size(); i = next++) {
      pipelines[i] = std::make_unique<Pipeline>(client, plan, i, request, valid, hooks);
      report.clusters[i] = pipelines[i]->run();
    }
  };
  size_t width = std::min<size_t>(plan.clusters.size(), static_cast<size_t>(std::max(1, request.concurrency)));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < width; ++t) pool.emplace_back(worker);
  if (width > 0) worker();
  for (auto& t : pool) t.join();
  if (hooks.stop != nullptr) report.signal = hooks.stop->load();
  if (report.signal != 0) {
    for (size_t i = 0; i < pipelines.size(); ++i) {
      if (pipelines[i] && pipelines[i]->pending_delete()) report.clusters[i] = pipelines[i]->unfinished();
    }
    return report;
  }

  // The webhooks first, then the orphan deletes of the legacy EtcdClusters.
  if (!plan.legacy_webhooks.empty() && request.remove_legacy_webhooks) {
    remove_webhooks(client, plan, report.clusters, report);
  }
  for (size_t i = 0; i < pipelines.size(); ++i) {
    if (pipelines[i] && pipelines[i]->pending_delete()) report.clusters[i] = pipelines[i]->finish();
  }
  if (hooks.stop != nullptr) report.signal = hooks.stop->load();
  if (report.signal != 0) return report;

  for (const auto* list : {&plan.backups, &plan.schedules}) {
    for (const auto& b : *list) report.backups.push_back(apply_backup(client, b, report.clusters));
  }
  if (!plan.legacy_webhooks.empty()) terminating_note(plan, report);
  return report;
}

int apply_exit_code(const ApplyReport& report) {
  if (report.signal == SIGINT) return 130;
  if (report.signal == SIGTERM) return 143;
  std::vector<base::Outcome> outcomes;
  for (const auto& c : report.clusters) {
    outcomes.push_back(c.outcome == ClusterOutcome::Adopted   ? base::Outcome::Succeeded
                       : c.outcome == ClusterOutcome::Blocked ? base::Outcome::Blocked
                                                              : base::Outcome::Failed);
  }
  for (const auto& b : report.backups) {
    if (b.outcome == "failed") outcomes.push_back(base::Outcome::Failed);
    else if (b.outcome == "blocked") outcomes.push_back(base::Outcome::Blocked);
  }
  return base::aggregate_exit_code(outcomes);
}

}  // namespace migrate
