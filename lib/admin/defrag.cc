#include "admin/defrag.h"

#include <algorithm>
#include <thread>

#include "admin/maintenance.h"
#include "admin/status.h"
#include "etcd/member_id.h"

namespace admin {

namespace {

using ojson = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

std::string role_of(const DefragCandidate& m) { return m.learner ? "learner" : m.leader ? "leader" : "follower"; }

// Every voter answers, a leader is known and no CORRUPT alarm is raised
// (NOSPACE does not block: defragmenting is how it is cleared).
std::string cluster_unhealthy(Session& s) {
  auto statuses = status_of_members(s);
  bool leader = false;
  for (const auto& m : statuses) {
    if (!m.status) return "member " + Session::label(*m.member) + " does not answer: " + m.error;
    leader = leader || m.status->leader != 0;
  }
  if (!leader) return "no leader";
  auto alarms = s.etcd->alarm_list();
  if (!alarms) return "alarm list failed: " + alarms.error().one_line();
  for (const auto& a : *alarms) {
    if (a.type == etcd::AlarmType::Corrupt) return "CORRUPT alarm on " + etcd::format_member_id(a.member_id);
  }
  return {};
}

}  // namespace

base::Status validate(const DefragRule& r, bool min_reclaim_given) {
  if (r.quota_usage_above && (*r.quota_usage_above < 1 || *r.quota_usage_above > 100)) {
    return base::make_error(base::ErrorKind::Usage, "--quota-usage-above must be between 1% and 100%");
  }
  if (min_reclaim_given && !r.quota_usage_above) {
    return base::make_error(base::ErrorKind::Usage, "--min-reclaim applies only together with --quota-usage-above");
  }
  if (r.min_reclaim > r.free_space_above && r.quota_usage_above) {
    return base::make_error(base::ErrorKind::Usage, "--min-reclaim must not exceed --free-space-above");
  }
  if (r.free_space_above < 0 || r.min_reclaim < 0) {
    return base::make_error(base::ErrorKind::Usage, "sizes must not be negative");
  }
  return {};
}

Decision decide(const DefragRule& rule, const DefragCandidate& m) {
  if (m.learner) return {false, defrag_reason::kLearner};
  if (rule.all) return {true, {}};
  const std::int64_t reclaimable = m.db_size - m.db_size_in_use;
  std::int64_t floor = rule.free_space_above;
  if (rule.quota_usage_above && m.quota > 0 &&
      static_cast<double>(m.db_size) > *rule.quota_usage_above / 100.0 * static_cast<double>(m.quota)) {
    floor = rule.min_reclaim;
  }
  if (reclaimable > floor) return {true, {}};
  return {false, defrag_reason::kBelowThreshold};
}

std::vector<DefragCandidate> defrag_order(std::vector<DefragCandidate> ms) {
  auto rank = [](const DefragCandidate& m) { return m.learner ? 2 : m.leader ? 1 : 0; };
  std::stable_sort(ms.begin(), ms.end(), [&](const DefragCandidate& a, const DefragCandidate& b) {
    if (rank(a) != rank(b)) return rank(a) < rank(b);
    return a.name < b.name;
  });
  return ms;
}

base::Result<std::vector<DefragRow>> defrag(Session& s, const DefragRequest& r, const DefragProgress& progress) {
  auto statuses = status_of_members(s);
  std::vector<DefragRow> rows;
  std::vector<DefragCandidate> candidates;
  for (const auto& ms : statuses) {
    if (!r.member.empty() && ms.member->name != r.member && ms.member->endpoint != r.member) continue;
    if (!ms.status) {
      DefragRow row{Session::label(*ms.member), ms.member->id, "-", "Failed", defrag_reason::kUnreachable, {}, {}, ms.error};
      rows.push_back(row);
      continue;
    }
    const auto& st = *ms.status;
    candidates.push_back({Session::label(*ms.member), ms.member->endpoint, st.header.member_id, st.is_leader(),
                          st.is_learner, st.db_size, st.db_size_in_use,
                          effective_quota(st.db_size_quota, s.target.cluster_object)});
  }
  if (!r.member.empty() && rows.empty() && candidates.empty()) {
    return base::make_error(base::ErrorKind::NotFound, "no member \"" + r.member + "\" in the target");
  }
  bool deferred = false;
  for (const auto& m : defrag_order(candidates)) {
    DefragRow row{m.name, m.id, role_of(m), {}, {}, m.db_size, {}, {}};
    auto finish = [&] {
      if (progress) progress(row);
      rows.push_back(row);
    };
    // One member named: unconditionally, as the Go plugin; but a learner
    // answers no Defragment (docs/rules.md#learners), so it fails here, in a
    // dry-run too.
    if (!r.member.empty() && m.learner) {
      row.outcome = "Failed";
      row.reason = defrag_reason::kLearner;
      row.error = "a learner answers no Defragment: promote it first (kubectl etcd member promote)";
      finish();
      continue;
    }
    Decision d = r.member.empty() ? decide(r.rule, m) : Decision{true, {}};
    if (!d.defragment) {
      row.outcome = "Skipped";
      row.reason = d.reason;
      finish();
      continue;
    }
    // The health gate is read in a dry-run too, so that it is skipped
    // where the run would skip (docs/rules.md#dry-run-checks-what-the-run-checks);
    // only the run's re-check after each member cannot be foreseen.
    if (r.member.empty()) {
      std::string why = deferred ? std::string("an earlier member is not healthy again") : cluster_unhealthy(s);
      if (!why.empty()) {
        deferred = true;
        row.outcome = "Skipped";
        row.reason = defrag_reason::kClusterNotHealthy;
        row.error = why;
        finish();
        continue;
      }
    }
    if (r.dry_run) {
      row.outcome = "Pending";
      finish();
      continue;
    }
    auto deadline = std::chrono::system_clock::now() + r.member_timeout;
    auto res = s.etcd->defragment(m.endpoint, deadline);
    if (!res) {
      row.outcome = "Failed";
      row.reason = defrag_reason::kRPCError;
      row.error = res.error().one_line();
      finish();
      continue;
    }
    row.outcome = "Defragmented";
    // Wait until the member answers again (it blocks while it copies its
    // db), then take its new size.
    auto until = Clock::now() + std::max(s.target.config.call_timeout * 6, std::chrono::milliseconds(30000));
    while (Clock::now() < until) {
      auto st = s.etcd->status(m.endpoint);
      if (st) {
        row.after = st->db_size;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    if (!row.after) deferred = true;
    finish();
  }
  return rows;
}

std::vector<base::Outcome> defrag_outcomes(const std::vector<DefragRow>& rows) {
  std::vector<base::Outcome> out;
  for (const auto& r : rows) {
    if (r.outcome == "Failed") {
      out.push_back(base::Outcome::Failed);
    } else if (r.outcome == "Skipped" && r.reason == defrag_reason::kClusterNotHealthy) {
      out.push_back(base::Outcome::Blocked);
    } else {
      out.push_back(base::Outcome::Succeeded);
    }
  }
  return out;
}

ojson defrag_document(const std::vector<DefragRow>& rows) {
  ojson doc = ojson::array();
  for (const auto& r : rows) {
    ojson j;
    j["name"] = r.name;
    j["id"] = r.id ? etcd::format_member_id(r.id) : std::string();
    j["role"] = r.role;
    j["outcome"] = r.outcome;
    j["reason"] = r.reason;
    j["dbSizeBefore"] = r.before ? ojson(*r.before) : ojson();
    j["dbSizeAfter"] = r.after ? ojson(*r.after) : ojson();
    j["reclaimedBytes"] = r.before && r.after ? ojson(*r.before - *r.after) : ojson();
    j["error"] = r.error;
    doc.push_back(std::move(j));
  }
  return doc;
}

output::View defrag_view() {
  output::View v;
  v.columns = {{"NAME", "name"},
               {"ID", "id", output::Cell::Text, true},
               {"ROLE", "role"},
               {"OUTCOME", "outcome"},
               {"REASON", "reason"},
               {"BEFORE", "dbSizeBefore", output::Cell::Bytes},
               {"AFTER", "dbSizeAfter", output::Cell::Bytes},
               {"RECLAIMED", "reclaimedBytes", output::Cell::Bytes},
               {"ERROR", "error", output::Cell::Text, true}};
  return v;
}

}  // namespace admin
