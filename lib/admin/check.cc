#include "admin/check.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "admin/certs.h"
#include "etcd/fanout.h"

namespace admin {

namespace {

constexpr std::chrono::milliseconds kRedial{300};

// Every member's Status, concurrently, under one deadline.
DialErrors probe(const Target& t, etcd::Client& c) {
  const etcd::Deadline d = std::chrono::system_clock::now() + t.config.call_timeout;
  std::vector<std::string> errors(t.members.size());
  etcd::run_concurrently(t.members.size(), [&](std::size_t i) {
    const auto& m = t.members[i];
    if (m.endpoint.empty()) {
      errors[i] = m.problem.empty() ? "no endpoint to dial" : m.problem;
      return;
    }
    auto st = c.status(m.endpoint, d);
    // One failed dial is no unreachable member yet: a connection refused or
    // cut while the machine is loaded was seen right after the operator
    // reported a new member Ready (docs/server-faults.md). Asked twice more,
    // 300 ms apart (the client's reconnect back-off is shorter), within the
    // deadline; a member that is down costs 0.6 s more.
    for (int attempt = 1; !st && st.error().kind == base::ErrorKind::CannotConnect && attempt < 3 &&
                          std::chrono::system_clock::now() + kRedial < d;
         ++attempt) {
      std::this_thread::sleep_for(kRedial);
      st = c.status(m.endpoint, d);
    }
    if (!st) errors[i] = st.error().one_line();
  });
  DialErrors out;
  for (std::size_t i = 0; i < t.members.size(); ++i) {
    if (!errors[i].empty() && !t.members[i].name.empty()) out[t.members[i].name] = errors[i];
  }
  return out;
}

bool tls_error(const std::string& e) {
  for (const char* w : {"certificate", "handshake", "SSL", "TLS", "x509"}) {
    if (e.find(w) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

base::Result<std::vector<Finding>> gather_findings(const Target& t, etcd::Client& c, const DialErrors* dialled) {
  // A linearizable read fails while the voters elect a leader ("leader
  // changed"); an election takes about a second, so retry within one budget.
  auto until = std::chrono::steady_clock::now() + t.config.call_timeout;
  auto list = c.member_list(true);
  while (!list && list.error().kind == base::ErrorKind::CannotConnect && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    list = c.member_list(true);
  }
  if (!list) return std::move(list).error();
  ConsistencyInput in;
  in.unreachable = dialled != nullptr ? *dialled : probe(t, c);
  in.cluster = t.cluster_object;
  in.members = t.member_objects;
  in.pods = t.pod_objects;
  in.etcd = std::move(list.value());
  in.operator_state = t.operator_state;
  return check_consistency(in);
}

base::Result<std::vector<Finding>> check_cluster(const Target& t, etcd::Client& c, kube::Client* kube) {
  auto findings = gather_findings(t, c);
  if (!findings || kube == nullptr || !t.from_cluster()) return findings;
  const bool unreachable = std::any_of(findings->begin(), findings->end(),
                                       [](const Finding& f) { return f.code == finding::kUnreachableMember; });
  if (!unreachable) return findings;
  // Best effort: without the Secrets (RBAC) the finding keeps its dial error.
  auto certs = certificate_report(*kube, {t.ns, t.cluster, std::time(nullptr)});
  if (certs) explain_unreachable(*findings, certs->certificates);
  return findings;
}

void explain_unreachable(std::vector<Finding>& findings, const std::vector<CertFinding>& certs) {
  for (auto& f : findings) {
    if (f.code != finding::kUnreachableMember) continue;
    std::string why;
    for (const auto& cert : certs) {
      if (cert.source.role != "server") continue;
      const bool names_it = std::none_of(cert.uncovered_today.begin(), cert.uncovered_today.end(),
                                         [&](const std::string& host) { return host.rfind(f.member + ".", 0) == 0; });
      for (const auto& p : cert.problems) {
        const bool explains = p.code == "san-today" ? !names_it
                                                    : (p.code == "expired" || p.code == "chain" || p.code == "missing" ||
                                                       p.code == "not-pem") && tls_error(f.message);
        if (explains) why += "; `kubectl etcd certs` finds why: " + p.message;
      }
    }
    f.message += why;
  }
}

nlohmann::ordered_json check_document(const std::vector<Finding>& findings) {
  nlohmann::ordered_json doc;
  doc["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : findings) doc["findings"].push_back(finding_json(f));
  return doc;
}

output::View check_view() {
  output::View v;
  v.rows = "findings";
  v.columns = {{"CODE", "code"}, {"SEVERITY", "severity"}, {"MEMBER", "member"}, {"ID", "id"}, {"MESSAGE", "message"}};
  v.empty_message = "no findings";
  return v;
}

std::string render_report(const nlohmann::ordered_json& doc, const output::View& view, output::Format format) {
  std::string out = output::render(doc, view, format);
  if (format != output::Format::Table && format != output::Format::Wide) return out;
  if (view.rows != "findings" && doc.contains("findings") && !doc["findings"].empty()) {
    out += "\nFINDINGS\n" + output::render(doc, check_view(), format);
  }
  return out;
}

}  // namespace admin
