#include "admin/status.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "base/json_at.h"
#include "etcd/fanout.h"

#include "admin/check.h"
#include "etcd/member_id.h"

namespace admin {

namespace {

using ojson = nlohmann::ordered_json;
using json = nlohmann::json;

std::string id_text(std::uint64_t id) { return id ? etcd::format_member_id(id) : std::string(); }

ojson cluster_summary(const json& c) {
  ojson out;
  const json spec = base::object_at(c, "/spec");
  const json st = base::object_at(c, "/status");
  const json observed = base::object_at(st, "/observed");
  out["name"] = base::string_at(c, "/metadata/name");
  out["namespace"] = base::string_at(c, "/metadata/namespace");
  out["clusterID"] = base::string_at(st, "/clusterID");
  out["version"] = {{"spec", base::string_at(spec, "/version")}, {"observed", base::string_at(observed, "/version")}};
  auto num = [](const json& o, const char* k) -> ojson {
    return o.contains(k) && o[k].is_number_integer() ? ojson(o[k].get<long long>()) : ojson();
  };
  out["replicas"] = {{"spec", num(spec, "replicas")}, {"observed", num(observed, "replicas")},
                     {"ready", num(st, "readyMembers")}};
  out["authEnabled"] = base::bool_at(st, "/authEnabled");
  out["conditions"] = ojson::array();
  for (const auto& cond : base::array_at(st, "/conditions")) {
    out["conditions"].push_back({{"type", base::string_at(cond, "/type")},
                                 {"status", base::string_at(cond, "/status")},
                                 {"reason", base::string_at(cond, "/reason")},
                                 {"message", base::string_at(cond, "/message")}});
  }
  out["progressDeadline"] = base::string_at(st, "/progressDeadline").empty()
                                ? ojson()
                                : ojson(base::string_at(st, "/progressDeadline"));
  return out;
}

}  // namespace

std::int64_t effective_quota(std::int64_t status_quota, const json& cluster) {
  if (status_quota > 0) return status_quota;
  if (long long q = base::int_at(cluster, "/spec/options/quotaBackendBytes"); q > 0) return q;
  return std::int64_t{2} * 1024 * 1024 * 1024;
}

StatusReport cluster_status(Session& s) {
  StatusReport r;
  if (s.target.from_cluster()) r.cluster = cluster_summary(s.target.cluster_object);
  auto selected = s.target.selected();
  std::vector<std::string> eps;
  for (const auto* m : selected) eps.push_back(m->endpoint);
  std::vector<std::optional<base::Result<etcd::StatusInfo>>> res(selected.size());
  const etcd::Deadline d = s.member_deadline();
  etcd::run_concurrently(selected.size(), [&](std::size_t i) {
    if (selected[i]->endpoint.empty()) {
      res[i].emplace(base::make_error(base::ErrorKind::CannotConnect, selected[i]->problem));
    } else {
      res[i].emplace(s.etcd->status(selected[i]->endpoint, d));
    }
  });
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const auto& m = *selected[i];
    ojson row;
    row["name"] = Session::label(m);
    const auto& st = *res[i];
    if (st) {
      ++r.answered;
      row["id"] = id_text(st->header.member_id);
      row["role"] = st->is_learner ? "learner" : st->is_leader() ? "leader" : "follower";
      row["leader"] = id_text(st->leader);
      row["version"] = st->version;
      row["dbSize"] = st->db_size;
      row["dbSizeInUse"] = st->db_size_in_use;
      row["quota"] = effective_quota(st->db_size_quota, s.target.cluster_object);
      row["raftTerm"] = st->raft_term;
      row["raftIndex"] = st->raft_index;
      row["raftAppliedIndex"] = st->raft_applied_index;
      row["errors"] = st->errors;
    } else {
      ++r.unreachable;
      row["id"] = id_text(m.id);
      row["role"] = "-";
      row["leader"] = "";
      row["version"] = "";
      row["dbSize"] = nullptr;
      row["dbSizeInUse"] = nullptr;
      row["quota"] = nullptr;
      row["raftTerm"] = nullptr;
      row["raftIndex"] = nullptr;
      row["raftAppliedIndex"] = nullptr;
      row["errors"] = ojson::array({st.error().one_line()});
    }
    row["pod"] = m.name;
    row["ready"] = m.pod_ready;
    row["restarts"] = m.restarts >= 0 ? ojson(m.restarts) : ojson();
    row["endpoint"] = m.endpoint;
    r.members.push_back(std::move(row));
  }
  return r;
}

int status_exit_code(const StatusReport& r) {
  if (r.answered == 0 && r.unreachable > 0) return 2;
  return r.unreachable > 0 ? 5 : 0;
}

ojson status_document(const StatusReport& r) {
  ojson doc;
  if (!r.cluster.is_null()) doc["cluster"] = r.cluster;
  doc["members"] = r.members;
  return doc;
}

output::View status_view() {
  output::View v;
  v.rows = "members";
  v.columns = {{"NAME", "name"},
               {"ID", "id"},
               {"ROLE", "role"},
               {"LEADER", "leader"},
               {"VERSION", "version"},
               {"DB SIZE", "dbSize", output::Cell::Bytes},
               {"IN USE", "dbSizeInUse", output::Cell::Bytes},
               {"QUOTA", "quota", output::Cell::Bytes},
               {"RAFT TERM", "raftTerm"},
               {"RAFT INDEX", "raftIndex"},
               {"APPLIED", "raftAppliedIndex"},
               {"POD", "pod", output::Cell::Text, true},
               {"READY", "ready", output::Cell::Text, true},
               {"RESTARTS", "restarts", output::Cell::Text, true},
               {"ENDPOINT", "endpoint", output::Cell::Text, true},
               {"ERRORS", "errors"}};
  return v;
}

std::string status_text(const ojson& doc, output::Format format) {
  if (format != output::Format::Table && format != output::Format::Wide) return {};
  if (!doc.contains("cluster")) return {};
  const auto& c = doc["cluster"];
  auto text = [](const ojson& v) -> std::string {
    if (v.is_null()) return "-";
    if (v.is_string()) return v.get<std::string>().empty() ? "-" : v.get<std::string>();
    return v.dump();
  };
  std::string out;
  out += "Cluster:        " + text(c["namespace"]) + "/" + text(c["name"]) + "\n";
  out += "Cluster ID:     " + text(c["clusterID"]) + "\n";
  out += "Version:        " + text(c["version"]["spec"]) + " (observed " + text(c["version"]["observed"]) + ")\n";
  out += "Replicas:       " + text(c["replicas"]["spec"]) + " (observed " + text(c["replicas"]["observed"]) +
         ", ready " + text(c["replicas"]["ready"]) + ")\n";
  out += std::string("Auth enabled:   ") + (c["authEnabled"].get<bool>() ? "true" : "false") + "\n";
  if (!c["progressDeadline"].is_null()) out += "Deadline:       " + text(c["progressDeadline"]) + "\n";
  for (const auto& cond : c["conditions"]) {
    out += "Condition:      " + text(cond["type"]) + "=" + text(cond["status"]) + " " + text(cond["reason"]);
    if (!cond["message"].get<std::string>().empty()) out += ": " + cond["message"].get<std::string>();
    out += "\n";
  }
  return out + "\n";
}

base::Result<MemberListReport> member_list(Session& s, bool probe) {
  // Who answers, asked of every member at once while MemberList runs; only
  // when asked for: each further member is a connection and a TLS handshake.
  std::vector<std::optional<bool>> answered(probe ? s.target.members.size() : 0);
  std::thread prober;
  if (probe) {
    prober = std::thread([&] {
      const etcd::Deadline d = s.member_deadline();
      etcd::run_concurrently(answered.size(), [&](std::size_t i) {
        const auto& m = s.target.members[i];
        answered[i] = !m.endpoint.empty() && s.etcd->status(m.endpoint, d).ok();
      });
    });
  }
  auto list = s.etcd->member_list(true);
  if (prober.joinable()) prober.join();
  if (!list) return std::move(list).error();
  MemberListReport r;
  r.probed = probe;
  for (const auto& a : answered) {
    if (!*a) ++r.unreachable;
  }
  // A member of the target answers for the etcd member of its name or, with
  // --endpoints (no names), for the one whose client URLs hold its endpoint.
  auto reachable = [&](const std::string& name, const std::vector<std::string>& client_urls) -> ojson {
    for (std::size_t i = 0; i < answered.size(); ++i) {
      const auto& m = s.target.members[i];
      const bool same = !m.name.empty() ? m.name == name
                                        : std::find(client_urls.begin(), client_urls.end(), m.endpoint) != client_urls.end();
      if (same) return *answered[i];
    }
    return nullptr;
  };
  const auto& t = s.target;
  std::map<std::uint64_t, const json*> cr_of;
  std::map<std::string, const json*> pod_of;
  for (const auto& p : t.pod_objects) pod_of[base::string_at(p, "/metadata/name")] = &p;
  std::vector<const json*> unmatched;
  for (const auto& m : t.member_objects) {
    if (const auto* e = match_member(t.cluster_object, m, list->members)) {
      cr_of[e->id] = &m;
    } else {
      unmatched.push_back(&m);
    }
  }
  if (t.from_cluster()) {
    ConsistencyInput in;
    in.cluster = t.cluster_object;
    in.members = t.member_objects;
    in.pods = t.pod_objects;
    in.etcd = *list;
    in.operator_state = t.operator_state;
    r.findings = check_consistency(in);
  }
  auto codes_for = [&](const std::string& name, std::uint64_t id) {
    std::vector<std::string> out;
    for (const auto& f : r.findings) {
      if ((!name.empty() && f.member == name) || (id != 0 && f.id == id)) out.push_back(f.code);
    }
    return out;
  };
  auto cr_state = [&](const json* m) -> std::string {
    if (m == nullptr) return "-";
    if (base::find_at(*m, "/metadata/deletionTimestamp") != nullptr) return "terminating";
    const json spec = base::object_at(*m, "/spec");
    if (base::bool_at(spec, "/dormant")) return "dormant";
    if (base::string_at(spec, "/initialCluster").empty()) return "pending";
    return "ok";
  };
  auto pod_text = [&](const std::string& name) -> std::string {
    return pod_of.count(name) ? name : std::string();
  };
  for (const auto& e : list->members) {
    const json* cr = cr_of.count(e.id) ? cr_of[e.id] : nullptr;
    std::string name = cr ? base::string_at(*cr, "/metadata/name") : e.name;
    ojson row;
    row["name"] = name;
    row["id"] = etcd::format_member_id(e.id);
    row["role"] = e.is_learner ? "learner" : "voter";
    row["started"] = e.started();
    row["peerURLs"] = e.peer_urls;
    row["clientURLs"] = e.client_urls;
    row["isLearner"] = e.is_learner;
    row["cr"] = t.from_cluster() ? cr_state(cr) : "-";
    row["pod"] = cr ? pod_text(name) : std::string();
    row["findings"] = codes_for(name, e.id);
    if (probe) row["reachable"] = reachable(name, e.client_urls);
    r.members.push_back(std::move(row));
  }
  for (const json* m : unmatched) {
    std::string name = base::string_at(*m, "/metadata/name");
    std::uint64_t id = 0;
    if (auto p = etcd::parse_member_id(base::string_at(*m, "/status/memberID"))) id = *p;
    ojson row;
    row["name"] = name;
    row["id"] = id_text(id);
    row["role"] = "-";
    row["started"] = false;
    row["peerURLs"] = ojson::array({peer_url(t.cluster_object, *m)});
    row["clientURLs"] = ojson::array();
    row["isLearner"] = false;
    row["cr"] = cr_state(m);
    row["pod"] = pod_text(name);
    row["findings"] = codes_for(name, id);
    if (probe) row["reachable"] = reachable(name, {});
    r.members.push_back(std::move(row));
  }
  return r;
}

int member_list_exit_code(const MemberListReport& r) { return r.unreachable > 0 ? 5 : 0; }

ojson member_list_document(const MemberListReport& r) {
  ojson doc;
  doc["members"] = r.members;
  doc["findings"] = ojson::array();
  for (const auto& f : r.findings) doc["findings"].push_back(finding_json(f));
  return doc;
}

output::View member_list_view(bool probe) {
  output::View v;
  v.rows = "members";
  v.columns = {{"NAME", "name"},       {"ID", "id"},   {"ROLE", "role"},
               {"STARTED", "started"}, {"PEER URL", "peerURLs"},
               {"CLIENT URL", "clientURLs", output::Cell::Text, true},
               {"CR", "cr"},           {"POD", "pod"}};
  if (probe) v.columns.push_back({"REACHABLE", "reachable"});
  v.columns.push_back({"FINDINGS", "findings"});
  return v;
}

}  // namespace admin
