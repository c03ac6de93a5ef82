#include "admin/health.h"

#include <chrono>
#include <map>
#include <optional>

#include "admin/check.h"
#include "etcd/errors.h"
#include "etcd/fanout.h"
#include "etcd/member_id.h"
#include "operator/names.h"

namespace admin {

namespace {

using SteadyClock = std::chrono::steady_clock;

struct Probe {
  HealthRow row;
  std::uint64_t leader = 0;
};

Probe probe(etcd::Client& c, const MemberTarget& m, etcd::Deadline d) {
  Probe p;
  p.row.name = Session::label(m);
  p.row.endpoint = m.endpoint;
  p.row.id = m.id;
  p.row.restarts = m.restarts;
  p.row.role = "-";
  auto t0 = SteadyClock::now();
  auto done = [&](std::string error) {
    p.row.took = std::chrono::duration<double>(SteadyClock::now() - t0).count();
    p.row.error = std::move(error);
    p.row.healthy = p.row.error.empty();
    return p;
  };
  if (m.endpoint.empty()) return done(m.problem);
  auto st = c.status(m.endpoint, d);
  if (!st) return done(std::move(st).error().one_line());
  p.row.reachable = true;
  p.row.id = st->header.member_id;
  p.leader = st->leader;
  p.row.role = st->is_learner ? "learner" : st->is_leader() ? "leader" : "follower";
  if (!st->errors.empty()) {
    std::string all;
    for (const auto& e : st->errors) all += (all.empty() ? "" : "; ") + e;
    return done(all);
  }
  if (st->leader == 0) return done("no leader");
  etcd::RangeOptions ro;
  ro.serializable = st->is_learner;
  ro.count_only = true;
  auto r = c.range_at(m.endpoint, std::string(op::kHealthKey), ro, d);
  if (!r && r.error().reason != etcd::reason::kPermissionDenied) {
    return done(std::string(st->is_learner ? "serializable" : "linearizable") + " read failed: " +
                r.error().one_line());
  }
  if (!st->is_learner) {
    auto alarms = c.alarm_list_at(m.endpoint, d);
    if (!alarms) {
      if (alarms.error().reason != etcd::reason::kPermissionDenied) {
        return done("alarm list failed: " + alarms.error().one_line());
      }
    } else if (!alarms->empty()) {
      std::string all;
      for (const auto& a : *alarms) {
        all += std::string(all.empty() ? "" : ", ") + "alarm " + etcd::alarm_name(a.type) + " on " +
               etcd::format_member_id(a.member_id);
      }
      return done(all);
    }
  }
  return done({});
}

}  // namespace

HealthReport check_health(Session& s, bool with_consistency) {
  HealthReport out;
  auto selected = s.target.selected();
  const etcd::Deadline d = s.member_deadline();
  std::vector<std::optional<Probe>> probes(selected.size());
  etcd::run_concurrently(selected.size(), [&](std::size_t i) { probes[i] = probe(*s.etcd, *selected[i], d); });

  // Leader agreement: the leader most members name is the one.
  std::map<std::uint64_t, int> votes;
  for (const auto& p : probes) {
    if (p->leader != 0) ++votes[p->leader];
  }
  std::uint64_t leader = 0;
  int best = 0;
  for (const auto& [id, n] : votes) {
    if (n > best) leader = id, best = n;
  }
  std::vector<std::string> answered;
  for (auto& p : probes) {
    if (p->row.healthy && p->leader != leader) {
      p->row.healthy = false;
      p->row.error = "leader " + etcd::format_member_id(p->leader) + " disagrees with " +
                     etcd::format_member_id(leader);
    }
    if (p->row.reachable && p->row.role != "learner") answered.push_back(p->row.endpoint);
    out.members.push_back(std::move(p->row));
  }

  if (with_consistency && s.target.from_cluster() && !answered.empty()) {
    auto c = s.client_preferring(answered);
    if (!c) {
      out.consistency_error = c.error().one_line();
    } else {
      // The members' own answers of above: a member that does not answer is not asked again.
      DialErrors dialled;
      for (const auto& m : out.members) {
        if (!m.reachable && !m.name.empty()) dialled[m.name] = m.error;
      }
      auto f = gather_findings(s.target, **c, &dialled);
      if (f) {
        out.findings = std::move(f.value());
      } else {
        out.consistency_error = f.error().one_line();
      }
    }
  }
  return out;
}

int health_exit_code(const HealthReport& r) {
  bool any_reachable = false, all_healthy = true;
  for (const auto& m : r.members) {
    any_reachable = any_reachable || m.reachable;
    all_healthy = all_healthy && m.healthy;
  }
  if (!r.members.empty() && !any_reachable) return 2;
  if (!all_healthy || !r.findings.empty() || !r.consistency_error.empty()) return 1;
  return 0;
}

nlohmann::ordered_json health_document(const HealthReport& r) {
  nlohmann::ordered_json doc;
  doc["members"] = nlohmann::ordered_json::array();
  for (const auto& m : r.members) {
    nlohmann::ordered_json j;
    j["name"] = m.name;
    j["id"] = m.id ? etcd::format_member_id(m.id) : std::string();
    j["role"] = m.role;
    j["healthy"] = m.healthy;
    j["took"] = m.took;
    j["error"] = m.error;
    j["endpoint"] = m.endpoint;
    j["restarts"] = m.restarts >= 0 ? nlohmann::ordered_json(m.restarts) : nlohmann::ordered_json();
    doc["members"].push_back(std::move(j));
  }
  doc["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : r.findings) doc["findings"].push_back(finding_json(f));
  if (!r.consistency_error.empty()) doc["consistencyError"] = r.consistency_error;
  return doc;
}

output::View health_view() {
  output::View v;
  v.rows = "members";
  v.columns = {{"NAME", "name"},
               {"ID", "id"},
               {"ROLE", "role"},
               {"HEALTHY", "healthy"},
               {"TOOK", "took", output::Cell::Seconds},
               {"ERROR", "error"},
               {"ENDPOINT", "endpoint", output::Cell::Text, true},
               {"RESTARTS", "restarts", output::Cell::Text, true}};
  return v;
}

}  // namespace admin
