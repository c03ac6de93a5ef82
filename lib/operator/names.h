// The contract with the etcd operator and with the legacy operator: API
// groups, label and annotation keys, object names. Every such string of the
// suite lives here and nowhere else (one name, one place: ARCHITECTURE.md).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace op {

// --- APIs --------------------------------------------------------------------
inline constexpr std::string_view kGroup = "etcd-operator.cozystack.io";
inline constexpr std::string_view kVersion = "v1alpha2";
inline constexpr std::string_view kApiVersion = "etcd-operator.cozystack.io/v1alpha2";
inline constexpr std::string_view kLegacyGroup = "etcd.aenix.io";
inline constexpr std::string_view kLegacyVersion = "v1alpha1";
inline constexpr std::string_view kLegacyApiVersion = "etcd.aenix.io/v1alpha1";

inline constexpr std::string_view kKindEtcdCluster = "EtcdCluster";
inline constexpr std::string_view kKindEtcdMember = "EtcdMember";
inline constexpr std::string_view kKindEtcdSnapshot = "EtcdSnapshot";
inline constexpr std::string_view kKindEtcdDefrag = "EtcdDefrag";
inline constexpr std::string_view kKindEtcdBackup = "EtcdBackup";
inline constexpr std::string_view kKindEtcdBackupSchedule = "EtcdBackupSchedule";

// --- labels ------------------------------------------------------------------
// The three labels the legacy operator puts on pods and selectors; the new
// operator keeps them on its cluster-level label set.
inline constexpr std::string_view kLabelName = "app.kubernetes.io/name";
inline constexpr std::string_view kLabelNameValue = "etcd";
inline constexpr std::string_view kLabelInstance = "app.kubernetes.io/instance";
inline constexpr std::string_view kLabelManagedBy = "app.kubernetes.io/managed-by";
inline constexpr std::string_view kLabelManagedByValue = "etcd-operator";
inline constexpr std::string_view kLabelComponent = "app.kubernetes.io/component";
inline constexpr std::string_view kLabelCluster = "etcd-operator.cozystack.io/cluster";
inline constexpr std::string_view kLabelRole = "etcd-operator.cozystack.io/role";
inline constexpr std::string_view kRoleVoter = "voter";
// The label the API server puts on every namespace, its name as the value.
inline constexpr std::string_view kLabelNamespaceName = "kubernetes.io/metadata.name";

// --- annotations and finalizers -----------------------------------------------
inline constexpr std::string_view kReservedPrefix = "etcd-operator.cozystack.io/";
inline constexpr std::string_view kAnnHeadlessServiceName = "etcd-operator.cozystack.io/headless-service-name";
inline constexpr std::string_view kAnnDataDirSubpath = "etcd-operator.cozystack.io/data-dir-subpath";
inline constexpr std::string_view kAnnPeerAutoTls = "etcd-operator.cozystack.io/peer-auto-tls";
inline constexpr std::string_view kMemberFinalizer = "etcd-operator.cozystack.io/member-cleanup";
// Newer operators deny DELETE of an EtcdMember that does not carry this
// annotation with the value "true" (docs/operator-contract.md#deleting-an-etcdmember).
inline constexpr std::string_view kAnnAllowDeletion = "etcd-operator.cozystack.io/allow-deletion";
inline constexpr std::string_view kAllowDeletionValue = "true";
// The legacy data dir is <volume>/default.etcd.
inline constexpr std::string_view kLegacyDataDirSubpath = "default.etcd";

// This suite's own keys (docs/rules.md#our-annotation-keys), all under one prefix.
inline constexpr std::string_view kOwnPrefix = "cli.etcd-operator.cozystack.io/";
inline constexpr std::string_view kAnnAdoptedFrom = "cli.etcd-operator.cozystack.io/adopted-from";
inline constexpr std::string_view kAnnAdoption = "cli.etcd-operator.cozystack.io/adoption";
inline constexpr std::string_view kAnnRenderedBy = "cli.etcd-operator.cozystack.io/rendered-by";
inline constexpr std::string_view kAnnReplicasBeforeBreakGlass =
    "cli.etcd-operator.cozystack.io/replicas-before-break-glass";
// On an EtcdMember while `member roll` replaces its Pod: the UID of the Pod
// being replaced, so a re-run can tell the operator's new Pod from the old.
inline constexpr std::string_view kAnnRollingPodUid = "cli.etcd-operator.cozystack.io/rolling-pod-uid";
// On an EtcdCluster after an operator-mediated `member add`: the absolute
// spec.replicas it asked for and the members it saw (operator/scale_target.h).
inline constexpr std::string_view kAnnScaleTarget = "cli.etcd-operator.cozystack.io/scale-target";

// The etcd container of a member Pod, and how many restarts without Ready
// make the operator replace the member (if the others keep quorum;
// docs/operator-contract.md#self-heal).
inline constexpr std::string_view kMemberContainer = "etcd";
inline constexpr int kSelfHealRestarts = 5;

// --- legacy defaults -----------------------------------------------------------
inline constexpr std::string_view kLegacyDefaultImage = "quay.io/coreos/etcd:v3.5.12";
inline constexpr std::string_view kLegacyDefaultClaim = "data";
inline constexpr std::string_view kLegacyContainer = "etcd";
inline constexpr std::string_view kDefaultControllerNamespace = "etcd-operator-system";
inline constexpr std::string_view kDefaultLegacyController = "etcd-operator-system/etcd-operator-controller-manager";
inline constexpr std::string_view kDefaultNewController = "etcd-operator-system/etcd-operator";
inline constexpr std::string_view kDefaultScheduleImage = "bitnami/kubectl:1.33";
// The legacy operator's sidecar (docs/rules.md#operator-gate), not an operator image.
inline constexpr std::string_view kOperatorProxySidecar = "kube-rbac-proxy";
inline constexpr int kClientPort = 2379;
inline constexpr int kPeerPort = 2380;

// --- names ---------------------------------------------------------------------
std::string member_pvc(std::string_view member);             // data-<m>
std::string cluster_token(std::string_view c, std::string_view ns);  // <c>-<ns>
std::string root_credentials_secret(std::string_view c);    // <c>-root-credentials
std::string native_client_service(std::string_view c);      // <c>-client
std::string legacy_cluster_state_configmap(std::string_view c);  // <c>-cluster-state
// <pod>.<svc>.<ns>.svc
std::string member_dns(std::string_view pod, std::string_view service, std::string_view ns);
// A host name of the shape the operator gives members it creates later
// (<c>-<5 characters>.<c>.<ns>.svc). Its suffix uses characters that
// generateName never picks, so only a wildcard name can cover it: what a
// certificate must list for the cluster to grow.
std::string future_member_dns(std::string_view c, std::string_view ns);
std::string service_dns(std::string_view service, std::string_view ns);  // <svc>.<ns>.svc
std::string snapshotter_name(std::string_view schedule);   // <schedule>-snapshotter (docs/rules.md#backup-schedules)
// The name of the legacy StatefulSet's etcd member pods: <c>-<ordinal>.
bool is_legacy_member_pod(std::string_view c, std::string_view pod);

// --- kubectl-etcd: Secrets of a native cluster (docs/rules.md#tls-material) -------------------
inline constexpr std::string_view kSecretCa = "ca.crt";
inline constexpr std::string_view kSecretCert = "tls.crt";
inline constexpr std::string_view kSecretKey = "tls.key";
inline constexpr std::string_view kSecretUsername = "username";
inline constexpr std::string_view kSecretPassword = "password";
inline constexpr std::string_view kRootUser = "root";
std::string cert_manager_server_secret(std::string_view c);           // <c>-server-tls
std::string cert_manager_operator_client_secret(std::string_view c);  // <c>-operator-client-tls
std::string cert_manager_peer_secret(std::string_view c);             // <c>-peer-tls
// Whether the operator runs (docs/break-glass-design.md#operator-active): its leader Lease in the
// operator's namespace, its Deployment's container and namespace filter.
inline constexpr std::string_view kOperatorLease = "aa20b3a9.etcd-operator.cozystack.io";
inline constexpr std::string_view kOperatorContainer = "manager";
inline constexpr std::string_view kWatchNamespaceEnv = "WATCH_NAMESPACE";
inline constexpr std::string_view kWatchNamespaceArg = "--watch-namespace";
// kubectl-etcd snapshot save --via-cr: <c>-<UTC yyyymmdd-hhmmss> (docs/rules.md#etcdsnapshot).
std::string snapshot_cr_name(std::string_view c, std::chrono::system_clock::time_point t);
// kubectl-etcd restore --file with an S3 source and no --s3-key: the object
// the file is uploaded to, <c>-restore.db (docs/restore.md).
std::string restore_object_key(std::string_view c);
// The S3 user metadata name carrying the uploaded file's sha256 (whole file,
// trailer included), by which a re-run recognises its own upload.
inline constexpr std::string_view kRestoreSha256Metadata = "etcd-restore-sha256";
// kubectl-etcd defrag --via-cr: <c>-defrag-<UTC yyyymmdd-hhmmss> (docs/operator-contract.md#etcddefrag).
std::string defrag_cr_name(std::string_view c, std::chrono::system_clock::time_point t);
// The key health reads (etcdctl endpoint health reads the same).
inline constexpr std::string_view kHealthKey = "health";

// --- label sets ------------------------------------------------------------------
nlohmann::ordered_json legacy_labels(std::string_view c);          // the three labels
nlohmann::ordered_json cluster_labels(std::string_view c);         // three + cluster label
nlohmann::ordered_json member_labels(std::string_view c, std::string_view m);  // + component
std::string legacy_selector(std::string_view c);  // name=etcd,instance=<c> (the reference's pod list)

// The native headless Service <c> the operator expects (docs/rules.md#client-service-cutover),
// controlled by the EtcdCluster with `cluster_uid`.
nlohmann::ordered_json native_headless_service(std::string_view c, std::string_view ns, std::string_view cluster_uid);

// An owner reference to a new-API object.
nlohmann::ordered_json owner_reference(std::string_view kind, std::string_view name, std::string_view uid,
                                       bool controller);

}  // namespace op
