#include "kube/resource.h"

#include "kube/query.h"

namespace kube {

std::string Resource::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

std::string Resource::group_version_path() const {
  return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
}

std::string Resource::group_resource() const {
  return group.empty() ? plural : plural + "." + group;
}

std::string Resource::path(std::string_view ns, std::string_view name,
                           std::string_view subresource) const {
  std::string p = group_version_path();
  if (namespaced && !ns.empty()) p += "/namespaces/" + path_escape(ns);
  p += "/" + plural;
  if (!name.empty()) {
    p += "/" + path_escape(name);
    if (!subresource.empty()) p += "/" + std::string(subresource);
  }
  return p;
}

std::string Resource::describe(std::string_view ns, std::string_view name) const {
  std::string who = namespaced && !ns.empty() ? std::string(ns) + "/" + std::string(name)
                                              : std::string(name);
  return group_resource() + " \"" + who + "\"";
}

bool operator==(const Resource& a, const Resource& b) {
  return a.group == b.group && a.version == b.version && a.plural == b.plural &&
         a.namespaced == b.namespaced;
}

namespace resources {
const Resource namespaces{"", "v1", "namespaces", "Namespace", false};
const Resource nodes{"", "v1", "nodes", "Node", false};
const Resource pods{"", "v1", "pods", "Pod", true};
const Resource services{"", "v1", "services", "Service", true};
const Resource configmaps{"", "v1", "configmaps", "ConfigMap", true};
const Resource secrets{"", "v1", "secrets", "Secret", true};
const Resource serviceaccounts{"", "v1", "serviceaccounts", "ServiceAccount", true};
const Resource persistentvolumeclaims{"", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", true};
const Resource events{"", "v1", "events", "Event", true};
const Resource statefulsets{"apps", "v1", "statefulsets", "StatefulSet", true};
const Resource deployments{"apps", "v1", "deployments", "Deployment", true};
const Resource controllerrevisions{"apps", "v1", "controllerrevisions", "ControllerRevision", true};
const Resource poddisruptionbudgets{"policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", true};
const Resource jobs{"batch", "v1", "jobs", "Job", true};
const Resource cronjobs{"batch", "v1", "cronjobs", "CronJob", true};
const Resource leases{"coordination.k8s.io", "v1", "leases", "Lease", true};
const Resource roles{"rbac.authorization.k8s.io", "v1", "roles", "Role", true};
const Resource rolebindings{"rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding", true};
const Resource clusterroles{"rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false};
const Resource clusterrolebindings{"rbac.authorization.k8s.io", "v1", "clusterrolebindings",
                                   "ClusterRoleBinding", false};
const Resource customresourcedefinitions{"apiextensions.k8s.io", "v1", "customresourcedefinitions",
                                         "CustomResourceDefinition", false};
const Resource selfsubjectaccessreviews{"authorization.k8s.io", "v1", "selfsubjectaccessreviews",
                                        "SelfSubjectAccessReview", false};
}  // namespace resources

}  // namespace kube
