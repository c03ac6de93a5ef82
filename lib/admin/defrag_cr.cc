#include "admin/defrag_cr.h"

#include <cmath>

#include "base/json_at.h"
#include "operator/names.h"
#include "operator/quantity.h"
#include "operator/resources.h"

namespace admin {

namespace {

using json = nlohmann::json;

std::string quantity(std::int64_t bytes) {
  op::Quantity q;
  q.nano = static_cast<op::int128>(bytes) * 1000000000;
  q.format = op::Quantity::Format::BinarySI;
  return q.canonical();
}

}  // namespace

base::Result<json> defrag_cr(const Target& t, const DefragCrRequest& r, std::chrono::system_clock::time_point now) {
  if (!t.from_cluster()) {
    return base::make_error(base::ErrorKind::Usage, "--via-cr needs a cluster (-c)", {},
                           "an EtcdDefrag names its EtcdCluster");
  }
  json rule = json::object();
  if (r.rule.all) {
    rule["all"] = true;
  } else {
    if (r.free_space_given) rule["freeSpaceAbove"] = quantity(r.rule.free_space_above);
    if (r.rule.quota_usage_above) {
      const double pct = *r.rule.quota_usage_above;
      if (pct != std::floor(pct) || pct < 1 || pct > 100) {
        return base::make_error(base::ErrorKind::Usage, "--via-cr takes a whole --quota-usage-above percent (1%..100%)",
                               {}, "EtcdDefrag's rule.quotaUsageAbove is an integer percent");
      }
      rule["quotaUsageAbove"] = std::to_string(static_cast<int>(pct)) + "%";
    }
    if (r.min_reclaim_given) rule["minReclaim"] = quantity(r.rule.min_reclaim);
  }
  json spec = {{"clusterRef", {{"name", t.cluster}}}};
  if (!rule.empty()) spec["rule"] = rule;
  return json{{"apiVersion", std::string(op::kApiVersion)},
              {"kind", std::string(op::kKindEtcdDefrag)},
              {"metadata", {{"name", r.name.empty() ? op::defrag_cr_name(t.cluster, now) : r.name}, {"namespace", t.ns}}},
              {"spec", spec}};
}

std::vector<DefragRow> defrag_cr_rows(const json& cr) {
  std::vector<DefragRow> rows;
  for (const auto& m : base::array_at(cr, "/status/members")) {
    DefragRow row;
    row.name = base::string_at(m, "/name");
    row.role = base::string_at(m, "/role");
    row.outcome = base::string_at(m, "/outcome");
    row.reason = base::string_at(m, "/reason");
    if (m.contains("dbSizeBefore") && m["dbSizeBefore"].is_number_integer()) row.before = m["dbSizeBefore"].get<std::int64_t>();
    if (m.contains("dbSizeAfter") && m["dbSizeAfter"].is_number_integer()) row.after = m["dbSizeAfter"].get<std::int64_t>();
    rows.push_back(std::move(row));
  }
  return rows;
}

base::Result<std::vector<DefragRow>> defrag_via_cr(kube::Client& kube, const Target& t, const DefragCrRequest& r,
                                                   const PhaseProgress& progress) {
  auto obj = defrag_cr(t, r, std::chrono::system_clock::now());
  if (!obj) return std::move(obj).error();
  CrRun run;
  run.resource = &op::resources::etcddefrags;
  run.object = std::move(*obj);
  const std::string name = base::string_at(run.object, "/metadata/name");
  run.nothing_would = "nothing would ever run the defragmentation";
  run.instead = "run `kubectl etcd defrag` without --via-cr";
  run.follow = "`kubectl get etcddefrags.etcd-operator.cozystack.io " + name + " -n " + t.ns + "`";
  run.handler = "the " + std::string(op::kKindEtcdDefrag) + " controller of the " + std::string(op::kApiVersion) +
                " operator";
  run.timeout = r.timeout;
  auto done = run_cr(kube, t, run, progress);
  if (!done) return std::move(done).error();
  if (base::string_at(*done, "/status/phase") == "Failed") {
    auto [reason, message] = last_condition(*done);
    return base::make_error(base::ErrorKind::Failed, "the defragmentation failed: " + reason + ": " + message,
                           op::resources::etcddefrags.describe(t.ns, name));
  }
  return defrag_cr_rows(*done);
}

}  // namespace admin
