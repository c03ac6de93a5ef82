#include "operator/release_owner.h"

#include "base/json_at.h"
#include "base/text.h"
#include "operator/legacy_cluster.h"
#include "operator/meta.h"
#include "operator/names.h"

namespace op {

namespace {

bool has_key(const nlohmann::json& object, const char* map, std::string_view prefix) {
  const nlohmann::json* m = base::find_at(object, map);
  if (m == nullptr || !m->is_object()) return false;
  for (auto it = m->begin(); it != m->end(); ++it) {
    if (it.key().rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// A Flux key is read from the labels first, then from the annotations.
std::string flux_value(const nlohmann::json& object, std::string_view key) {
  std::string v = label(object, key);
  return v.empty() ? annotation(object, key) : v;
}

}  // namespace

std::string ReleaseOwner::describe() const {
  std::string out = helm_release.empty() ? "a Helm release" : "Helm release " + base::quoted(helm_release);
  if (!helm_namespace.empty()) out += " in namespace " + base::quoted(helm_namespace);
  if (flux()) out += " (Flux HelmRelease " + base::quoted(flux_namespace + "/" + flux_name) + ")";
  return out;
}

std::optional<ReleaseOwner> release_owner(const nlohmann::json& object) {
  const bool helm = label(object, kLabelManagedBy) == kHelmManagedByValue ||
                    has_key(object, "/metadata/annotations", kHelmPrefix);
  const bool flux = has_key(object, "/metadata/labels", kFluxHelmPrefix) ||
                    has_key(object, "/metadata/annotations", kFluxHelmPrefix);
  if (!helm && !flux) return std::nullopt;
  const std::string ns = base::string_at(object, "/metadata/namespace");
  ReleaseOwner o;
  o.helm_release = annotation(object, kAnnHelmReleaseName);
  o.helm_namespace = annotation(object, kAnnHelmReleaseNamespace);
  if (o.helm_namespace.empty()) o.helm_namespace = ns;
  if (flux) {
    o.flux_name = flux_value(object, kFluxHelmReleaseName);
    o.flux_namespace = flux_value(object, kFluxHelmReleaseNamespace);
    // helm-controller names the release <namespace>-<name> unless told
    // otherwise; without its name label the release name is the best guess.
    if (o.flux_name.empty()) o.flux_name = o.helm_release.empty() ? "<unknown>" : o.helm_release;
    if (o.flux_namespace.empty()) o.flux_namespace = o.helm_namespace;
  }
  return o;
}

bool is_release_mark(std::string_view key, std::string_view value) {
  if (key == kLabelManagedBy) return value == kHelmManagedByValue;
  return key.rfind(kHelmPrefix, 0) == 0 || key.rfind(kFluxHelmPrefix, 0) == 0;
}

}  // namespace op
