#include "admin/unwedge_exec.h"

#include <ctime>

#include "admin/kube_util.h"
#include "base/json_at.h"
#include "base/rfc3339.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/client.h"
#include "kube/status_error.h"
#include "operator/names.h"
#include "operator/resources.h"

namespace admin {

using json = nlohmann::json;

namespace {


std::string rfc3339(std::chrono::system_clock::time_point t) {
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

class Fixer {
 public:
  Fixer(MemberEnv& env, const ExecOptions& o)
      : env_(env), kube_(*env.kube), o_(o), ns_(env.session->target.ns), c_(env.session->target.cluster) {}

  base::Result<Outcome> run(const UnwedgeFix& f) {
    if (f.id == "clear-id") return clear_id(f);
    if (f.id == "release") return release(f);
    if (f.id == "remove-learner") return remove_learner(f);
    if (f.id == "expire-deadline") return expire_deadline();
    return base::make_error(base::ErrorKind::Failed, "unknown fix " + f.id);
  }

 private:
  base::Result<json> member(const std::string& m) {
    auto o = kube_.get(op::resources::etcdmembers, ns_, m);
    if (!o && kube::is_not_found(o.error())) return json();
    return o;
  }

  // The fix's member ID, name or peer URL (as planned) in a fresh
  // linearizable MemberList.
  base::Result<bool> listed(const UnwedgeFix& f) {
    auto l = env_.session->etcd->member_list(true);
    if (!l) return std::move(l).error();
    return find_member(*l, f.etcd_id, f.member, f.peer_url) != nullptr;
  }

  base::Result<Outcome> clear_id(const UnwedgeFix& f) {
    auto m = member(f.member);
    if (!m) return std::move(m).error();
    if (m->is_null()) return Outcome{"skipped", "EtcdMember gone"};
    if (base::string_at(*m, "/status/memberID").empty()) return Outcome{"skipped", "no memberID"};
    auto l = listed(f);
    if (!l) return std::move(l).error();
    if (*l) return base::make_error(base::ErrorKind::Failed, "etcd lists " + f.member + " again: its finalizer has work to do");
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdmembers, ns_, f.member, kube::PatchType::Merge,
                         guarded(*m, {{"status", {{"memberID", ""}}}}), po);
    if (!r && !kube::is_not_found(r.error())) return std::move(r).error();
    return Outcome{"done", "memberID cleared"};
  }

  base::Result<Outcome> release(const UnwedgeFix& f) { return release_finalizer(env_, f.member, f.etcd_id, f.peer_url); }

  base::Result<Outcome> remove_learner(const UnwedgeFix& f) {
    auto l = env_.session->etcd->member_list(true);
    if (!l) return std::move(l).error();
    const etcd::Member* e = nullptr;
    for (const auto& x : l->members) {
      if (x.id == f.etcd_id) e = &x;
    }
    if (e == nullptr) return Outcome{"skipped", "etcd does not list it"};
    if (!e->is_learner) {
      return base::make_error(base::ErrorKind::Failed,
                             "member " + etcd::format_member_id(f.etcd_id) + " was promoted meanwhile");
    }
    auto r = retry_while_unhealthy([&] { return env_.session->etcd->member_remove(f.etcd_id); }, o_.timeout,
                                   o_.progress);
    if (!r) {
      if (r.error().reason != etcd::reason::kMemberNotFound) return std::move(r).error();
      auto again = env_.session->etcd->member_list(true);
      if (!again) return std::move(again).error();
      for (const auto& x : again->members) {
        if (x.id == f.etcd_id) return std::move(r).error();
      }
      return Outcome{"skipped", "already removed"};
    }
    return Outcome{"done", "removed learner " + etcd::format_member_id(f.etcd_id)};
  }

  base::Result<Outcome> expire_deadline() {
    auto cl = kube_.get(op::resources::etcdclusters, ns_, c_);
    if (!cl) return std::move(cl).error();
    const auto now = std::chrono::system_clock::now();
    auto t = base::parse_rfc3339(base::string_at(*cl, "/status/progressDeadline"));
    if (!t || *t <= now) return Outcome{"skipped", "progressDeadline not ahead"};
    const std::string past = rfc3339(now - std::chrono::seconds(1));
    kube::PatchOptions po;
    po.subresource = "status";
    auto r = kube_.patch(op::resources::etcdclusters, ns_, c_, kube::PatchType::Merge,
                         guarded(*cl, {{"status", {{"progressDeadline", past}}}}), po);
    if (!r) return std::move(r).error();
    return Outcome{"done", "progressDeadline " + past};
  }

  MemberEnv& env_;
  kube::Client& kube_;
  const ExecOptions& o_;
  std::string ns_, c_;
};

}  // namespace

base::Result<std::vector<UnwedgeOutcome>> execute_unwedge(MemberEnv& env, const UnwedgePlan& plan,
                                                         const ExecOptions& options) {
  Fixer fixer(env, options);
  std::vector<UnwedgeOutcome> out;
  for (const auto& f : plan.fixes) {
    base::Result<Outcome> r = base::make_error(base::ErrorKind::Failed, "not tried");
    // A 409: the object changed between read and write; read and decide again.
    for (int attempt = 0; attempt < 5; ++attempt) {
      r = fixer.run(f);
      if (r || r.error().reason != "Conflict") break;
    }
    if (!r) return std::move(r).error();
    out.push_back({f.id, f.member, r->first, r->second});
    if (options.after_step) options.after_step(f.id);
  }
  return out;
}

nlohmann::ordered_json unwedge_exec_document(const UnwedgePlan& plan, const std::vector<UnwedgeOutcome>& done) {
  nlohmann::ordered_json d = unwedge_document(plan);
  for (std::size_t i = 0; i < done.size() && i < d["fixes"].size(); ++i) {
    d["fixes"][i]["outcome"] = done[i].outcome;
    d["fixes"][i]["detail"] = done[i].detail;
  }
  return d;
}

}  // namespace admin
