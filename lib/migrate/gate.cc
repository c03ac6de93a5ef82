#include "migrate/gate.h"

#include <set>

#include "base/json_at.h"
#include "operator/agent_result.h"
#include "operator/legacy_cluster.h"
#include "operator/names.h"
#include "operator/watch.h"

namespace migrate {

using json = nlohmann::json;

std::string image_repository(const std::string& image) {
  std::string s = image;
  if (auto at = s.find('@'); at != std::string::npos) s = s.substr(0, at);
  auto slash = s.rfind('/');
  auto colon = s.rfind(':');
  if (colon != std::string::npos && (slash == std::string::npos || colon > slash)) s = s.substr(0, colon);
  return s;
}

namespace {

std::string selector_string(const json& selector) {
  std::string out;
  auto add = [&](const std::string& term) { out += (out.empty() ? "" : ",") + term; };
  if (const json* labels = base::find_at(selector, "/matchLabels"); labels != nullptr && labels->is_object()) {
    for (auto it = labels->begin(); it != labels->end(); ++it) add(it.key() + "=" + (it.value().is_string() ? it.value().get<std::string>() : it.value().dump()));
  }
  if (const json* exprs = base::find_at(selector, "/matchExpressions"); exprs != nullptr && exprs->is_array()) {
    for (const auto& e : *exprs) {
      std::string key = base::string_at(e, "/key"), oper = base::string_at(e, "/operator");
      std::string values;
      for (const auto& v : base::array_at(e, "/values")) values += (values.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
      if (oper == "In") add(key + " in (" + values + ")");
      else if (oper == "NotIn") add(key + " notin (" + values + ")");
      else if (oper == "Exists") add(key);
      else if (oper == "DoesNotExist") add("!" + key);
    }
  }
  return out;
}

bool pod_alive(const json& pod) {
  std::string phase = base::string_at(pod, "/status/phase");
  return phase != "Succeeded" && phase != "Failed";
}

std::string pod_name(const json& pod) {
  return base::string_at(pod, "/metadata/namespace") + "/" + base::string_at(pod, "/metadata/name");
}

}  // namespace

bool selector_matches(const json& selector, const json& labels) {
  auto label = [&](const std::string& key) -> const json* {
    if (!labels.is_object() || !labels.contains(key) || !labels[key].is_string()) return nullptr;
    return &labels[key];
  };
  bool any = false;
  if (const json* ml = base::find_at(selector, "/matchLabels"); ml != nullptr && ml->is_object()) {
    for (auto it = ml->begin(); it != ml->end(); ++it) {
      any = true;
      const json* v = label(it.key());
      if (v == nullptr || *v != it.value()) return false;
    }
  }
  if (const json* exprs = base::find_at(selector, "/matchExpressions"); exprs != nullptr && exprs->is_array()) {
    for (const auto& e : *exprs) {
      any = true;
      const json* v = label(base::string_at(e, "/key"));
      const std::string oper = base::string_at(e, "/operator");
      bool listed = false;
      for (const auto& x : base::array_at(e, "/values")) listed = listed || (v != nullptr && *v == x);
      if (oper == "In" && !listed) return false;
      if (oper == "NotIn" && listed) return false;
      if (oper == "Exists" && v == nullptr) return false;
      if (oper == "DoesNotExist" && v != nullptr) return false;
    }
  }
  // An empty selector selects nothing here, as the gate never lists by it.
  return any;
}

PodUse judge_operator_image_pod(const json& pod, const std::set<std::string>& repositories, const std::string& scope) {
  for (const auto& ct : base::array_at(pod, "/spec/containers")) {
    if (repositories.count(image_repository(base::string_at(ct, "/image"))) == 0) continue;
    // The snapshot agent (an EtcdSnapshot's Job, or this tool's
    // --backup-mode job) runs the operator image for one snapshot and
    // changes no object: it is no operator.
    if (base::string_at(ct, "/name") == op::kAgentContainer) continue;
    // Another install that watches only other namespaces leaves this
    // scope alone (docs/operator-contract.md, "Whether the operator is active").
    if (!scope.empty() && !op::watches(op::watched_namespaces(ct), scope)) {
      return {PodUse::Note, "pod " + pod_name(pod) + " runs the operator image but watches only other namespaces"};
    }
    return {PodUse::Finding,
            "pod " + pod_name(pod) + " runs the operator image " + base::string_at(ct, "/image") + ": stop it before adopting"};
  }
  return {};
}

base::Result<GateReport> check_controllers(kube::Client& client, const Coordinates& legacy, const Coordinates& fresh,
                                          const std::string& scope) {
  GateReport report;
  std::set<std::string> repositories;
  std::set<std::string> seen_pods;
  std::vector<Coordinates> all = {legacy};
  if (!(fresh == legacy)) all.push_back(fresh);
  std::vector<json> deployments;
  for (const auto& c : all) {
    auto dep = client.get(kube::resources::deployments, c.ns, c.name);
    if (!dep) {
      if (dep.error().kind == base::ErrorKind::NotFound) {
        report.notes.push_back("Deployment " + c.text() + " does not exist (counted as down)");
        deployments.push_back(json());
        continue;
      }
      return dep.error();
    }
    deployments.push_back(std::move(*dep));
  }
  // docs/rules.md#operator-gate: an operator may run under another Deployment (a second install, a
  // renamed Helm release): every live pod is scanned for its image. The
  // same scan answers for the Deployments' own pods (one request, not one
  // per Deployment); only when it is forbidden are those listed one by one.
  kube::ListOptions alive;
  alive.field_selector = "status.phase!=Succeeded,status.phase!=Failed";
  auto everywhere = client.list_all(kube::resources::pods, "", alive);
  if (!everywhere) {
    report.notes.push_back("cannot scan all namespaces for operator pods: " + everywhere.error().one_line());
  }
  for (size_t i = 0; i < all.size(); ++i) {
    const Coordinates& c = all[i];
    const json& dep = deployments[i];
    if (dep.is_null()) continue;
    const json* replicas = base::find_at(dep, "/spec/replicas");
    if (replicas == nullptr || !replicas->is_number_integer() || replicas->get<long long>() != 0) {
      report.findings.push_back("Deployment " + c.text() + " has " +
                                (replicas == nullptr ? std::string("no replicas field (1)") : replicas->dump()) +
                                " replicas: scale it to 0 (kubectl -n " + c.ns + " scale deployment " + c.name +
                                " --replicas=0) or pass --skip-controller-check");
    }
    if (const json* containers = base::find_at(dep, "/spec/template/spec/containers"); containers && containers->is_array()) {
      for (const auto& ct : *containers) {
        // The auth proxy sidecar's image runs beside many operators.
        std::string repo = image_repository(base::string_at(ct, "/image"));
        if (!repo.empty() && base::string_at(ct, "/name") != op::kOperatorProxySidecar) repositories.insert(repo);
      }
    }
    const json selector = base::find_at(dep, "/spec/selector") ? *base::find_at(dep, "/spec/selector") : json();
    std::vector<json> own;
    if (everywhere) {
      for (const auto& pod : base::array_at(*everywhere, "/items")) {
        if (base::string_at(pod, "/metadata/namespace") != c.ns) continue;
        const json* labels = base::find_at(pod, "/metadata/labels");
        if (selector_matches(selector, labels != nullptr ? *labels : json())) own.push_back(pod);
      }
    } else {
      kube::ListOptions lo;
      lo.label_selector = selector_string(selector);
      if (lo.label_selector.empty()) continue;
      auto pods = client.list_all(kube::resources::pods, c.ns, lo);
      if (!pods) return pods.error();
      for (auto& pod : base::array_at(*pods, "/items")) own.push_back(std::move(pod));
    }
    for (const auto& pod : own) {
      if (!pod_alive(pod)) continue;
      seen_pods.insert(pod_name(pod));
      report.findings.push_back("pod " + pod_name(pod) + " of Deployment " + c.text() + " is " +
                                base::string_at(pod, "/status/phase") + ": wait until it is gone");
    }
  }
  if (!everywhere) return report;
  for (const auto& pod : base::array_at(*everywhere, "/items")) {
    if (seen_pods.count(pod_name(pod)) != 0) continue;
    auto use = judge_operator_image_pod(pod, repositories, scope);
    if (use.kind == PodUse::Note) report.notes.push_back(std::move(use.text));
    if (use.kind == PodUse::Finding) report.findings.push_back(std::move(use.text));
  }
  return report;
}

}  // namespace migrate
