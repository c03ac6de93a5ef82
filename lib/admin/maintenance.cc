#include "admin/maintenance.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/json_at.h"
#include "etcd/fanout.h"
#include "etcd/member_id.h"

namespace admin {

namespace {

using ojson = nlohmann::ordered_json;

std::string name_for(const Session& s, std::uint64_t id, const std::vector<etcd::Member>& ms) {
  for (const auto& m : s.target.members) {
    if (m.id == id && !m.name.empty()) return m.name;
  }
  for (const auto& m : ms) {
    if (m.id == id) return m.name;
  }
  return {};
}

}  // namespace

std::vector<MemberStatus> status_of_members(Session& s, bool selected_only) {
  std::vector<const MemberTarget*> ms;
  if (selected_only) {
    ms = s.target.selected();
  } else {
    for (const auto& m : s.target.members) ms.push_back(&m);
  }
  std::vector<MemberStatus> out(ms.size());
  const etcd::Deadline d = s.member_deadline();
  etcd::run_concurrently(ms.size(), [&](std::size_t i) {
    out[i].member = ms[i];
    if (ms[i]->endpoint.empty()) {
      out[i].error = ms[i]->problem;
      return;
    }
    auto st = s.etcd->status(ms[i]->endpoint, d);
    if (st) {
      out[i].status = std::move(st.value());
    } else {
      out[i].error = st.error().one_line();
    }
  });
  return out;
}

base::Result<std::int64_t> compact_target(const CompactRequest& r, std::int64_t current) {
  if (r.revision && r.keep) return base::make_error(base::ErrorKind::Usage, "--revision and --keep exclude each other");
  std::int64_t rev = current;
  if (r.revision) rev = *r.revision;
  if (r.keep) {
    if (*r.keep < 0) return base::make_error(base::ErrorKind::Usage, "--keep must not be negative");
    rev = current - *r.keep;
  }
  if (rev <= 0) {
    return base::make_error(base::ErrorKind::Refused, "nothing to compact: revision " + std::to_string(rev), {},
                           "the current revision is " + std::to_string(current));
  }
  if (rev > current) {
    return base::make_error(base::ErrorKind::Usage, "revision " + std::to_string(rev) + " is in the future", {},
                           "the current revision is " + std::to_string(current));
  }
  return rev;
}

base::Result<std::int64_t> compact(Session& s, const CompactRequest& r) {
  // The current revision from a voter's answer (the Go plugin read a Status header).
  etcd::RangeOptions ro;
  ro.count_only = true;
  auto cur = s.etcd->range("compact", ro);
  if (!cur) return std::move(cur).error();
  auto rev = compact_target(r, cur->header.revision);
  if (!rev) return rev;
  auto c = s.etcd->compact(*rev, r.physical);
  if (!c) return std::move(c).error();
  return *rev;
}

base::Result<std::vector<AlarmRow>> alarm_list(Session& s) {
  auto a = s.etcd->alarm_list();
  if (!a) return std::move(a).error();
  std::vector<AlarmRow> rows;
  for (const auto& x : *a) rows.push_back({name_for(s, x.member_id, {}), x.member_id, etcd::alarm_name(x.type), {}, {}});
  return rows;
}

ojson alarm_document(const std::vector<AlarmRow>& rows, bool disarm) {
  ojson doc = ojson::array();
  for (const auto& r : rows) {
    ojson j;
    j["member"] = r.member;
    j["id"] = etcd::format_member_id(r.id);
    j["alarm"] = r.alarm;
    if (disarm) {
      j["outcome"] = r.outcome;
      j["error"] = r.error;
    }
    doc.push_back(std::move(j));
  }
  return doc;
}

output::View alarm_view(bool disarm) {
  output::View v;
  v.columns = {{"MEMBER", "member"}, {"ID", "id"}, {"ALARM", "alarm"}};
  if (disarm) {
    v.columns.push_back({"OUTCOME", "outcome"});
    v.columns.push_back({"ERROR", "error"});
  }
  v.empty_message = "no alarms";
  return v;
}

base::Result<std::uint64_t> resolve_member(Session& s, const std::string& text, bool must_be_listed) {
  for (const auto& m : s.target.members) {
    if (!m.name.empty() && m.name == text) {
      if (m.id != 0) return m.id;
      break;
    }
  }
  auto list = s.etcd->member_list();
  if (list) {
    for (const auto& m : list->members) {
      if (!m.name.empty() && m.name == text) return m.id;
    }
  }
  auto id = etcd::parse_member_id(text);
  if (!id) {
    return base::make_error(base::ErrorKind::NotFound, "no member named \"" + text + "\"", {},
                           "give an EtcdMember name or a member ID");
  }
  if (must_be_listed && list) {
    bool known = false;
    for (const auto& m : list->members) known = known || m.id == *id;
    if (!known) {
      return base::make_error(base::ErrorKind::NotFound, "not a member of the cluster",
                              "member " + etcd::format_member_id(*id), "list the members with `kubectl etcd member list`");
    }
  }
  return *id;
}

base::Result<DisarmReport> alarm_disarm(Session& s, const DisarmRequest& r) {
  auto alarms = s.etcd->alarm_list();
  if (!alarms) return std::move(alarms).error();
  DisarmReport out;
  bool nospace_disarmed = false;
  for (const auto& a : *alarms) {
    AlarmRow row{name_for(s, a.member_id, {}), a.member_id, etcd::alarm_name(a.type), {}, {}};
    if ((r.member && *r.member != a.member_id) || (!r.alarm.empty() && r.alarm != row.alarm)) continue;
    if (a.type == etcd::AlarmType::Corrupt && !r.force) {
      row.outcome = "refused";
      row.error = "a CORRUPT alarm is disarmed only with --force, after the member's data was checked";
      out.outcomes.push_back(base::Outcome::Blocked);
    } else if (auto d = s.etcd->alarm_disarm(a); !d) {
      row.outcome = "failed";
      row.error = d.error().one_line();
      out.outcomes.push_back(base::Outcome::Failed);
    } else {
      row.outcome = "disarmed";
      out.outcomes.push_back(base::Outcome::Succeeded);
      nospace_disarmed = nospace_disarmed || a.type == etcd::AlarmType::NoSpace;
    }
    out.rows.push_back(std::move(row));
  }
  if (nospace_disarmed) {
    for (const auto& ms : status_of_members(s)) {
      if (!ms.status) continue;
      auto quota = ms.status->db_size_quota;
      if (quota == 0 && s.target.cluster_object.is_object()) {
        const auto& c = s.target.cluster_object;
        quota = base::int_at(c, "/spec/options/quotaBackendBytes", quota);
      }
      if (quota > 0 && ms.status->db_size >= quota) {
        out.warnings.push_back("member " + Session::label(*ms.member) + " still holds a db of " +
                               std::to_string(ms.status->db_size) + " bytes, at its quota of " + std::to_string(quota) +
                               ": NOSPACE will be raised again; compact and defrag first");
      }
    }
  }
  return out;
}

base::Result<MoveLeaderReport> move_leader(Session& s, const std::string& target) {
  auto statuses = status_of_members(s);
  const MemberStatus* leader = nullptr;
  for (const auto& m : statuses) {
    if (m.status && m.status->is_leader()) leader = &m;
  }
  if (!leader) {
    return base::make_error(base::ErrorKind::CannotConnect, "no reachable member is the leader", {},
                           "check `kubectl etcd health`");
  }
  MoveLeaderReport out;
  out.from = leader->status->header.member_id;
  out.from_name = Session::label(*leader->member);
  std::uint64_t to = 0;
  if (!target.empty()) {
    // etcd answers an unknown transferee with "bad leader transferee",
    // which does not say that the member is not there.
    auto id = resolve_member(s, target, true);
    if (!id) return std::move(id).error();
    to = *id;
  } else {
    std::uint64_t best_applied = 0;
    for (const auto& m : statuses) {
      if (!m.status || m.status->is_learner || m.status->is_leader() || !m.status->errors.empty()) continue;
      if (to == 0 || m.status->raft_applied_index > best_applied) {
        to = m.status->header.member_id;
        best_applied = m.status->raft_applied_index;
      }
    }
    if (to == 0) {
      return base::make_error(base::ErrorKind::Refused, "no healthy voter to move leadership to", {},
                             "a single-member cluster has nobody to hand over to");
    }
  }
  out.to = to;
  for (const auto& m : statuses) {
    if (m.status && m.status->header.member_id == to) out.to_name = Session::label(*m.member);
  }
  if (to == out.from) return out;
  auto r = s.etcd->move_leader(leader->member->endpoint, to);
  if (!r) return std::move(r).error();
  out.moved = true;
  // Verify from the new leader's side: raft hands over within an election
  // timeout or so.
  auto until = std::chrono::steady_clock::now() + s.target.config.call_timeout;
  while (std::chrono::steady_clock::now() < until) {
    for (const auto& m : status_of_members(s)) {
      if (m.status && m.status->header.member_id == to && m.status->is_leader()) return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return base::make_error(base::ErrorKind::Failed, "MoveLeader was accepted but " + etcd::format_member_id(to) +
                                                     " does not lead yet");
}

ojson move_leader_document(const MoveLeaderReport& r) {
  ojson j;
  j["from"] = r.from_name;
  j["fromID"] = etcd::format_member_id(r.from);
  j["to"] = r.to_name;
  j["toID"] = etcd::format_member_id(r.to);
  j["moved"] = r.moved;
  return j;
}

output::View move_leader_view() {
  output::View v;
  v.columns = {{"FROM", "from"}, {"FROM ID", "fromID"}, {"TO", "to"}, {"TO ID", "toID"}, {"MOVED", "moved"}};
  return v;
}

}  // namespace admin
