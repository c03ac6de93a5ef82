// The Runner of member surgery's steps (admin/member_exec.h): one object
// whose methods share what earlier steps learnt (the member added, its ID,
// the Pod rendered); the order, the records, the retries on a conflict and
// the resumption rule are the step engine's (docs/step-engine.md). Its
// steps live in member_exec.cc (the run and the dispatch),
// member_exec_add.cc (add, promote), member_exec_remove.cc (remove, replace,
// the counts, the operator's waits) and member_exec_roll.cc; reading the
// live state in member_state.cc. Private to lib/admin.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_exec.h"
#include "admin/member_handover.h"
#include "admin/wait_progress.h"
#include "kube/client.h"
#include "kube/resource.h"
#include "operator/resources.h"

namespace admin::exec_detail {

using json = nlohmann::json;
using Clock = std::chrono::steady_clock;
using Answer = base::StepAnswer;

// A --timeout as given: whole seconds, else milliseconds.
std::string budget(std::chrono::milliseconds t);

// The items of cluster c's objects of kind r: a LIST by the cluster label.
base::Result<json> cluster_items(KubeCalls& kube, const kube::Resource& r, const std::string& ns,
                                 const std::string& c);

class Runner {
 public:
  Runner(MemberEnv& env, KubeCalls& kube, EtcdCalls& etcd, const MemberPlan& plan, const MemberRequest& req,
         const ExecOptions& o)
      : env_(env), kube_(kube), etcd_(etcd), plan_(plan), req_(req), o_(o) {
    ns_ = env.session->target.ns;
    c_ = env.session->target.cluster;
    member_ = plan.op == MemberOp::Replace ? plan.added : plan.member;
    if (plan.op == MemberOp::Add) member_ = plan.added;
    id_ = plan.id;
  }

  base::Result<ExecReport> run();

 private:
  void progress(const std::string& s) {
    if (o_.progress) o_.progress(s);
  }

  // --- reads ---------------------------------------------------------------------
  base::Result<json> cluster() { return kube_.get(op::resources::etcdclusters, ns_, c_); }
  base::Result<json> member(const std::string& m) { return kube_.get(op::resources::etcdmembers, ns_, m); }
  base::Result<json> items(const kube::Resource& r) { return cluster_items(kube_, r, ns_, c_); }
  base::Result<json> get_opt(const kube::Resource& r, const std::string& name) {
    auto o = kube_.get(r, ns_, name);
    if (!o && kube::is_not_found(o.error())) return json();
    return o;
  }
  base::Result<etcd::MemberList> members_now() { return etcd_.member_list(); }

  base::Result<Answer> do_step(MemberStep s);

  // The member the add part works on (created, or resumed).
  const std::string& adding() const { return added_.empty() ? member_ : added_; }

  base::Result<Answer> scale();

  base::Result<Answer> grow();

  base::Result<Answer> create_member();

  base::Result<Answer> register_learner();

  base::Result<Answer> wire();

  base::Result<Answer> render();

  base::Result<Answer> record();

  // Backoff 500 ms doubling to 5 s, bounded by the overall timeout.
  // Where the wait stands and why, once per change, as a line that stays
  // (docs/break-glass-design.md#waits); progress in between.
  template <class F>
  base::Result<Answer> poll(const std::string& what, F&& try_once) {
    first_look_ = true;
    // The operator-mediated waits share one budget: --timeout bounds them together.
    const auto end = operator_wait_ ? *operator_wait_ : Clock::now() + o_.timeout;
    auto delay = std::chrono::milliseconds(500);
    WaitProgress shown;
    for (;;) {
      stands_.clear();
      cause_.clear();
      auto r = try_once();
      if (!r) return std::move(r).error();
      if (r->has_value()) return **r;
      first_look_ = false;
      const auto now = Clock::now();
      if (now + delay > end) {
        return base::make_error(base::ErrorKind::Timeout,
                               "timed out after " + budget(o_.timeout) + " " + WaitProgress::describe(what, stands_, cause_),
                               {}, timeout_hint_.empty() ? "re-run the same command to resume" : timeout_hint_);
      }
      if (auto line = shown.observe(what, stands_, cause_, now,
                                    std::chrono::duration_cast<std::chrono::milliseconds>(end - now))) {
        if (line->stays && o_.note) o_.note(line->text);
        else progress(line->text);
      }
      std::this_thread::sleep_for(delay);
      delay = std::min(delay * 2, std::chrono::milliseconds(5000));
    }
  }

  // A wait that writes nothing: it did something only if it watched the
  // change happen; what was there at its first look was already done
  // (docs/step-engine.md#what-a-flow-gives-the-engine).
  template <class F>
  base::Result<Answer> watch(const std::string& what, F&& try_once) {
    auto r = poll(what, std::forward<F>(try_once));
    if (r && first_look_ && r->acted()) r->kind = Answer::Kind::AlreadyDone;
    return r;
  }

  base::Result<Answer> ready();

  // The member promote works on: the plan's target (promote), or the one added.
  std::string promoting() const { return plan_.op == MemberOp::Promote ? plan_.member : adding(); }

  base::Result<std::uint64_t> promoting_id();

  base::Result<Answer> promote();

  base::Result<Answer> mark_voter();

  base::Result<Answer> pdb();

  std::vector<std::pair<std::uint64_t, std::string>> endpoints(const etcd::MemberList& l);

  base::Result<std::vector<VoterStatus>> voter_statuses();

  base::Result<Answer> move_leader();

  base::Result<std::string> keep_leadership_away(MemberStep which);

  base::Result<Answer> clear_id();

  base::Result<Answer> delete_member();

  base::Result<Answer> remove_etcd();

  base::Result<Answer> release() { return release_finalizer(kube_, etcd_, ns_, plan_.member, plan_.id, plan_.peer_url); }

  base::Result<Answer> force_delete_pod();

  base::Result<Answer> mark_roll();

  base::Result<Answer> unmark_roll();

  base::Result<Answer> delete_pod();

  base::Result<Answer> wait_pod();

  base::Result<Answer> rejoin();

  base::Result<Answer> count();

  base::Result<Answer> wait_added();

  base::Result<Answer> wait_removed();

  base::Result<Answer> wait_filled();

  void start_operator_wait() {
    if (!operator_wait_) operator_wait_ = Clock::now() + o_.timeout;
    timeout_hint_ = operator_hint();
  }

  // The change was handed to the operator, which goes on after a timeout
  // (a re-run of the same add while it does resumes it:
  // docs/step-engine.md#relative-effects).
  std::string operator_hint() const {
    return "the operator goes on by itself; `kubectl etcd status -c " + c_ + "` shows where it stands";
  }

  MemberEnv& env_;
  KubeCalls& kube_;
  EtcdCalls& etcd_;
  const MemberPlan& plan_;
  const MemberRequest& req_;
  const ExecOptions& o_;
  std::string ns_, c_;
  std::string member_;
  std::string added_;
  std::uint64_t id_ = 0;
  std::uint64_t added_id_ = 0;
  std::vector<etcd::Member> add_members_;
  ExecReport report_;
  bool first_look_ = true;     // the last poll answered at its first try
  std::string stands_;        // a poll's last word on where the wait stands
  std::string cause_;         // and why, when known
  std::string timeout_hint_;  // the hint of a wait's timeout, when not "re-run"
  std::optional<Clock::time_point> operator_wait_;  // the end of the operator-mediated waits' budget


 public:
  void set_added(const std::string& m) { added_ = m; }
};

}  // namespace admin::exec_detail
