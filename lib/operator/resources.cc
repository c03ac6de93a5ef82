#include "operator/resources.h"

#include "operator/names.h"

namespace op::resources {

namespace {
kube::Resource fresh(const char* plural, std::string_view kind) {
  return {std::string(kGroup), std::string(kVersion), plural, std::string(kind), true};
}
kube::Resource legacy(const char* plural, std::string_view kind) {
  return {std::string(kLegacyGroup), std::string(kLegacyVersion), plural, std::string(kind), true};
}
}  // namespace

const kube::Resource etcdclusters = fresh("etcdclusters", kKindEtcdCluster);
const kube::Resource etcdmembers = fresh("etcdmembers", kKindEtcdMember);
const kube::Resource etcdsnapshots = fresh("etcdsnapshots", kKindEtcdSnapshot);
const kube::Resource etcddefrags = fresh("etcddefrags", kKindEtcdDefrag);
const kube::Resource legacy_etcdclusters = legacy("etcdclusters", kKindEtcdCluster);
const kube::Resource legacy_etcdbackups = legacy("etcdbackups", kKindEtcdBackup);
const kube::Resource legacy_etcdbackupschedules = legacy("etcdbackupschedules", kKindEtcdBackupSchedule);
const kube::Resource mutating_webhooks = {"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations",
                                          "MutatingWebhookConfiguration", false};
const kube::Resource validating_webhooks = {"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations",
                                            "ValidatingWebhookConfiguration", false};

}  // namespace op::resources
