#include "admin/cr_run.h"

#include "kube/client.h"

namespace admin {

namespace {
using json = nlohmann::json;
}  // namespace

std::pair<std::string, std::string> last_condition(const json& cr) {
  std::pair<std::string, std::string> out;
  for (const auto& c : cr.value("status", json::object()).value("conditions", json::array())) {
    out = {c.value("reason", ""), c.value("message", "")};
  }
  return out;
}

base::Result<json> run_cr(kube::Client& kube, const Target& t, const CrRun& run, const PhaseProgress& progress) {
  const std::string name = run.object["metadata"]["name"];
  const std::string what = run.resource->describe(t.ns, name);
  if (t.operator_state && !t.operator_state->active) {
    return base::make_error(base::ErrorKind::Refused, "the operator does not run: " + t.operator_state->reason, what,
                           run.nothing_would + "; " + run.instead);
  }
  const auto& observed = t.cluster_object.contains("/status/observed/replicas"_json_pointer)
                             ? t.cluster_object["status"]["observed"]["replicas"]
                             : json();
  if (observed.is_number_integer() && observed.get<long long>() == 0) {
    return base::make_error(base::ErrorKind::Refused, "the cluster is paused (observed replicas 0)", what,
                           run.nothing_would + " until a member runs; " + run.instead);
  }
  auto created = kube.create(*run.resource, t.ns, run.object);
  if (!created) return std::move(created).error();
  std::string last_phase;
  auto done = kube.wait_for(
      *run.resource, t.ns, name,
      [&](const json* o) {
        if (o == nullptr) return false;
        std::string phase = o->value("status", json::object()).value("phase", "");
        if (phase != last_phase && progress) progress(phase);
        last_phase = phase;
        return phase == "Complete" || phase == "Failed";
      },
      run.timeout);
  if (!done) {
    auto e = std::move(done).error();
    if (e.object.empty()) e.object = what;
    if (e.kind == base::ErrorKind::Timeout) e.hint = "the " + run.object.value("kind", std::string("object")) + " stays; " + run.follow + " follows it";
    return e;
  }
  return std::move(done).value();
}

}  // namespace admin
