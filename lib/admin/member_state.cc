// The live state of a session's cluster (member_exec.h: read_state): what
// every plan and the operator's waits decide from.
#include "admin/member_exec.h"

#include "admin/member_runner.h"

#include "admin/cert_check.h"
#include "admin/consistency.h"
#include "admin/kube_util.h"
#include "admin/member_handover.h"
#include "admin/member_object.h"
#include "admin/member_render.h"
#include "admin/member_wait.h"
#include "admin/operator_scale.h"
#include "admin/target.h"
#include "admin/wait_progress.h"
#include "base/json_at.h"
#include "etcd/client.h"
#include "etcd/errors.h"
#include "etcd/member_id.h"
#include "kube/client.h"
#include "kube/conditions.h"
#include "kube/status_error.h"
#include "operator/meta.h"
#include "operator/names.h"
#include "operator/resources.h"
#include "operator/scale_target.h"

namespace admin {

using json = nlohmann::json;
using exec_detail::cluster_items;

base::Result<LiveState> read_state(MemberEnv& env, bool nodes) {
  Session& s = *env.session;
  kube::Client& kube = *env.kube;
  const std::string& ns = s.target.ns;
  const std::string& c = s.target.cluster;
  LiveState st;
  ClientKubeCalls calls(kube);
  auto cl = kube.get(op::resources::etcdclusters, ns, c);
  if (!cl) return std::move(cl).error();
  st.cluster = std::move(cl.value());
  auto ms = cluster_items(calls, op::resources::etcdmembers, ns, c);
  if (!ms) return std::move(ms).error();
  st.members = std::move(ms.value());
  auto pods = cluster_items(calls, kube::resources::pods, ns, c);
  if (!pods) return std::move(pods).error();
  st.pods = std::move(pods.value());
  auto pdb = kube.get(kube::resources::poddisruptionbudgets, ns, c);
  if (pdb) st.pdb = std::move(pdb.value());
  else if (!kube::is_not_found(pdb.error())) return std::move(pdb).error();
  auto svc = kube.get(kube::resources::services, ns, c);
  if (!svc && !kube::is_not_found(svc.error())) return std::move(svc).error();
  st.headless_service = static_cast<bool>(svc);
  for (const auto& name : member_secrets(st.cluster)) {
    auto sec = kube.get(kube::resources::secrets, ns, name);
    if (!sec && kube::is_not_found(sec.error())) st.missing_secrets.push_back(name);
    if (!sec) continue;
    auto uncovered = uncovered_certificate(*sec, c, ns);
    if (!uncovered.empty()) st.uncovered_certs.push_back(uncovered);
  }
  auto l = s.etcd->member_list(true);
  if (l) st.etcd = std::move(l.value());
  else st.etcd_error = l.error().one_line();
  std::vector<std::string> eps;
  std::vector<std::uint64_t> ids;  // of eps
  std::vector<std::pair<std::uint64_t, MemberTarget>> fresh;
  const auto& known = s.target.config.endpoints;
  auto targets = member_targets(st.cluster, st.members, st.pods);
  for (const auto& e : st.etcd.members) {
    std::string ep;
    const MemberTarget* target = nullptr;
    for (const auto& t : targets) {
      if (t.name == e.name && !e.name.empty() && !t.endpoint.empty()) {
        ep = t.endpoint;
        target = &t;
      }
    }
    // A Pod newer than the session (one the operator made during a wait) has
    // an address the session's client neither dials nor knows the TLS name
    // of: that member gets a client of its own, as `member_config` builds it.
    if (target != nullptr && std::find(known.begin(), known.end(), ep) == known.end()) {
      fresh.emplace_back(e.id, *target);
      continue;
    }
    if (ep.empty() && !e.client_urls.empty()) ep = e.client_urls.front();
    if (ep.empty()) {
      st.dial_errors[e.id] = "no endpoint to dial";
      continue;
    }
    eps.push_back(ep);
    ids.push_back(e.id);
  }
  auto answered = [&st](const etcd::StatusInfo& r) {
    st.healthy.insert(r.header.member_id);
    if (r.leader != 0) st.leader = r.leader;
  };
  const auto answers = s.etcd->status_all(eps, s.member_deadline());
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (answers[i].result) answered(*answers[i].result);
    else if (i < ids.size()) st.dial_errors[ids[i]] = answers[i].result.error().one_line();
  }
  for (const auto& [id, t] : fresh) {
    auto c = etcd::Client::create(member_config(s.target, t));
    if (!c) {
      st.dial_errors[id] = c.error().one_line();
      continue;
    }
    auto r = (*c)->status(t.endpoint, s.member_deadline());
    if (r) answered(*r);
    else st.dial_errors[id] = r.error().one_line();
  }
  if (nodes) {
    for (const auto& p : st.pods) {
      const std::string node = base::string_at(p, "/spec/nodeName");
      if (node.empty() || st.node_ready.count(node)) continue;
      auto n = kube.get(kube::resources::nodes, "", node);
      if (!n && !kube::is_not_found(n.error())) return std::move(n).error();
      st.node_ready[node] = n && kube::condition_true(*n, "Ready");
    }
  }
  st.operator_state = operator_state(kube, env.operator_deployment.empty() ? std::string(op::kDefaultNewController)
                                                                           : env.operator_deployment,
                                     ns);
  return st;
}

}  // namespace admin
