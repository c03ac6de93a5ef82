// How a Kubernetes resource is addressed: group, version, plural, kind and
// scope, and the REST paths built from them. Generic Kubernetes kinds are
// described here; the operator's own kinds live in lib/operator.
#pragma once

#include <string>
#include <string_view>

namespace kube {

struct Resource {
  std::string group;    // "" for the core group
  std::string version;  // "v1"
  std::string plural;   // "pods"
  std::string kind;     // "Pod"
  bool namespaced = true;

  // "v1" or "apps/v1", as in an object's apiVersion.
  std::string api_version() const;
  // "/api/v1" or "/apis/apps/v1".
  std::string group_version_path() const;
  // "pods" or "deployments.apps": the name RBAC and kubectl users read.
  std::string group_resource() const;
  // The collection or object path; ns is ignored for cluster-scoped
  // resources and an empty ns on a namespaced one means all namespaces.
  std::string path(std::string_view ns, std::string_view name = {},
                   std::string_view subresource = {}) const;
  // `pods "ns/name"` (or `namespaces "name"`), for base::Error::object.
  std::string describe(std::string_view ns, std::string_view name) const;
};

bool operator==(const Resource& a, const Resource& b);

namespace resources {
extern const Resource namespaces;
extern const Resource nodes;
extern const Resource pods;
extern const Resource services;
extern const Resource configmaps;
extern const Resource secrets;
extern const Resource serviceaccounts;
extern const Resource persistentvolumeclaims;
extern const Resource events;
extern const Resource statefulsets;
extern const Resource deployments;
extern const Resource controllerrevisions;
extern const Resource poddisruptionbudgets;
extern const Resource jobs;
extern const Resource cronjobs;
extern const Resource leases;
extern const Resource roles;
extern const Resource rolebindings;
extern const Resource clusterroles;
extern const Resource clusterrolebindings;
extern const Resource customresourcedefinitions;
extern const Resource selfsubjectaccessreviews;
}  // namespace resources

}  // namespace kube
