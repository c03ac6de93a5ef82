// Whole v1alpha2 objects as the apiserver could return them, in one JSON
// document {"cluster", "members", "pods", "deployment", "lease"} of any
// shape, through the readers of `status`, `check`/`verify` (the consistency
// checker), member targets and endpoints, the operator judgement and the
// member renderings `member add` plans with (docs/rules.md#typed-reads).
// The etcd member list is that of a healthy cluster of the members' names.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "admin/consistency.h"
#include "admin/member_render.h"
#include "admin/operator_state.h"
#include "admin/status.h"
#include "admin/target.h"
#include "base/json_at.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto doc = nlohmann::json::parse(data, data + size, nullptr, false);
  if (doc.is_discarded()) return 0;
  static const nlohmann::json null;
  const auto* cluster = base::find_at(doc, "/cluster");
  const auto* members = base::find_at(doc, "/members");
  const auto* pods = base::find_at(doc, "/pods");
  const nlohmann::json& c = cluster != nullptr ? *cluster : null;
  const nlohmann::json& m = members != nullptr ? *members : null;
  const nlohmann::json& p = pods != nullptr ? *pods : null;

  auto targets = admin::member_targets(c, m, p);
  (void)admin::cluster_endpoints(targets);
  (void)admin::client_tls(c);
  (void)admin::effective_quota(0, c);
  (void)admin::member_secrets(c);
  (void)admin::image_repository(base::object_at(doc, "/deployment"), base::array_at(doc, "/pods"));
  auto judged = admin::judge_operator(base::object_at(doc, "/lease"), base::object_at(doc, "/deployment"), "ns",
                                      std::chrono::system_clock::now());

  admin::ConsistencyInput in;
  in.cluster = c;
  in.members = base::array_at(doc, "/members");
  in.pods = base::array_at(doc, "/pods");
  in.operator_state = judged;
  std::uint64_t id = 1;
  for (const auto& member : in.members) {
    etcd::Member e;
    e.id = id++;
    e.name = base::string_at(member, "/metadata/name");
    e.peer_urls.push_back(admin::peer_url(c, member));
    in.etcd.members.push_back(e);
    (void)admin::render_pvc(member);
    (void)admin::render_pod(c, member, "quay.io/coreos/etcd", "fuzz");
  }
  for (const auto& f : admin::check_consistency(in)) (void)admin::finding_json(f).dump();
  (void)admin::new_member(c).dump();
  (void)admin::initial_cluster(in.etcd.members);
  return 0;
}
