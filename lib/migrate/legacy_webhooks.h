// Which legacy EtcdClusters a legacy webhook configuration covers, and which
// configurations --remove-legacy-webhooks removes (docs/adoption-runbook.md,
// "Legacy webhooks"). While the legacy operator is down its webhooks fail
// closed: they refuse every UPDATE of the legacy EtcdClusters they cover,
// the garbage collector's removal of the orphan finalizer included. Pure.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace migrate {

// Whether a Mutating/ValidatingWebhookConfiguration has a webhook that
// intercepts UPDATEs of `legacy` (a legacy EtcdCluster): a rule on group
// etcd.aenix.io and resource etcdclusters, a namespaceSelector matching its
// namespace and an objectSelector matching its labels. Of a namespace only
// the label kubernetes.io/metadata.name is known (no namespace is read): a
// requirement on another namespace label counts as met, so a configuration
// is rather taken to cover too much than too little.
bool webhook_covers(const nlohmann::json& config, const nlohmann::json& legacy);

// A label selector (matchLabels, matchExpressions) against `labels`. With
// `partial`, `labels` holds only the keys that are known: a requirement on
// any other key counts as met.
bool selector_matches(const nlohmann::json& selector, const nlohmann::json& labels, bool partial);

struct WebhookDecision {
  std::vector<std::string> remove;  // "<plural>/<name>", as the inventory names them
  std::vector<std::string> keep;    // covering a cluster of this run but not removable
  std::string reason;               // why the first kept one stays; "" when none is kept
};

// `configs`: (name, object) of the legacy webhook configurations. `legacy`:
// every legacy EtcdCluster of every namespace. A configuration goes when it
// covers at least one cluster `of_run` and every cluster it covers is
// `adopted` (by this run or an earlier one); configurations that cover none
// of the run's clusters are left alone (not in `remove` nor `keep`).
WebhookDecision decide_webhook_removal(const std::vector<std::pair<std::string, nlohmann::json>>& configs,
                                       const std::vector<nlohmann::json>& legacy,
                                       const std::function<bool(const nlohmann::json&)>& of_run,
                                       const std::function<bool(const nlohmann::json&)>& adopted);

}  // namespace migrate
