// Helm and Flux mark the objects a chart renders: Helm with the label
// app.kubernetes.io/managed-by=Helm and its meta.helm.sh/release-*
// annotations, Flux's helm-controller with helm.toolkit.fluxcd.io/* labels.
// A legacy EtcdCluster so marked is rendered again by its chart after the
// adoption (docs/adoption-verdicts.md, W22). The keys live here, with the
// other names of the objects the suite reads.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace op {

inline constexpr std::string_view kHelmManagedByValue = "Helm";  // of app.kubernetes.io/managed-by
inline constexpr std::string_view kHelmPrefix = "meta.helm.sh/";
inline constexpr std::string_view kAnnHelmReleaseName = "meta.helm.sh/release-name";
inline constexpr std::string_view kAnnHelmReleaseNamespace = "meta.helm.sh/release-namespace";
inline constexpr std::string_view kFluxHelmPrefix = "helm.toolkit.fluxcd.io/";
inline constexpr std::string_view kFluxHelmReleaseName = "helm.toolkit.fluxcd.io/name";
inline constexpr std::string_view kFluxHelmReleaseNamespace = "helm.toolkit.fluxcd.io/namespace";

struct ReleaseOwner {
  std::string helm_release;    // "" when unknown (managed-by=Helm without the annotation)
  std::string helm_namespace;  // the release's namespace (default: the object's)
  std::string flux_name;       // the Flux HelmRelease, "" without Flux
  std::string flux_namespace;

  bool flux() const { return !flux_name.empty(); }
  // "Helm release \"r\" in namespace \"n\" (Flux HelmRelease \"n/r\")".
  std::string describe() const;
};

// Who renders `object`, judged from its labels and annotations; nullopt when
// neither Helm nor Flux marked it.
std::optional<ReleaseOwner> release_owner(const nlohmann::json& object);

// Whether a label or annotation (key and value) is one of Helm's or Flux's
// ownership marks: copied onto another object, it makes Helm (or Flux) take
// that object for its own.
bool is_release_mark(std::string_view key, std::string_view value);

}  // namespace op
