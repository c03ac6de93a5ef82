// The REST coordinates of the operator's kinds (both APIs) and of the
// admission objects the adoption looks at. Generic kinds are in kube/resource.h.
#pragma once

#include "kube/resource.h"

namespace op::resources {

// etcd-operator.cozystack.io/v1alpha2
extern const kube::Resource etcdclusters;
extern const kube::Resource etcdmembers;
extern const kube::Resource etcdsnapshots;
extern const kube::Resource etcddefrags;
// etcd.aenix.io/v1alpha1
extern const kube::Resource legacy_etcdclusters;
extern const kube::Resource legacy_etcdbackups;
extern const kube::Resource legacy_etcdbackupschedules;
// admissionregistration.k8s.io/v1 (the legacy operator's webhooks, docs/rules.md#legacy-webhooks)
extern const kube::Resource mutating_webhooks;
extern const kube::Resource validating_webhooks;

}  // namespace op::resources
