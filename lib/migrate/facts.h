// What planning knows about one legacy cluster's live world, gathered by
// inspection (etcd and the API server) and handed to the pure translation.
// Nothing here does I/O; tests build these values by hand.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/cert_check.h"
#include "etcd/config.h"

namespace migrate {

struct LiveMember {
  std::string name;      // empty for a member that never started
  std::string id;        // 16 lowercase hex digits
  std::string peer_url;  // etcd's first peer URL, "" when none
  bool is_learner = false;
};

struct PodFact {
  std::string uid;
  bool running = false;  // status.phase == Running
  bool ready = false;    // condition Ready == True (docs/rules.md#dial-pods)
  bool deleting = false;
};

struct PvcFact {
  bool found = false;
  std::string error;            // a GET error other than not-found
  std::string controller_kind;  // kind of a controller: true owner reference, "" if none
  std::string controller_name;
  std::string volume_name;      // spec.volumeName (recorded for verify)
};

struct ClusterFacts {
  // B1: inspection failed, with the cause (pod list, TLS material, dial, RPC).
  std::optional<std::string> inspect_error;
  std::string cluster_id;  // 16 lowercase hex digits
  std::vector<LiveMember> members;  // as etcd returned them
  bool live_auth = false;
  std::map<std::string, PodFact> pods;   // by pod name (only pods named as members)
  std::map<std::string, PvcFact> pvcs;   // by member name: PVC data-<m>
  // New-API objects of the same names, as they are (docs/rules.md#only-our-own-objects).
  std::optional<nlohmann::json> new_cluster;
  std::map<std::string, nlohmann::json> new_members;
  // The Service named <c> when it exists (docs/rules.md#client-service-cutover).
  std::optional<nlohmann::json> service_c;
  // The legacy client Service <cs> when it is not named <c> and exists.
  std::optional<nlohmann::json> service_cs;
  // --auth-secret N: whether N exists with a non-empty password (docs/rules.md#root-user-replaced).
  enum class AuthSecret { NotGiven, Usable, Missing, NoPassword };
  AuthSecret auth_secret = AuthSecret::NotGiven;
  bool root_secret_exists = false;  // <c>-root-credentials already there (docs/rules.md#root-password-never-printed)
  // The TLS material inspection read from the legacy Secrets; --apply dials
  // with it instead of reading the Secrets again. Never printed.
  std::optional<etcd::TlsConfig> tls;
  // The legacy TLS Secrets' certificates judged against today's members and
  // the operator's future ones (docs/certificates.md); the error when they
  // could not be read.
  std::vector<admin::CertFinding> certificates;
  std::string certificates_error;
  // The CA certificates (PEM) of the legacy TLS Secrets, by Secret name:
  // ca.crt (a CA-only Secret's tls.crt for a *TrustedCASecret). Public
  // material: W8, W9 and W11 advise copying a CA only where it is missing.
  std::map<std::string, std::string> secret_cas;
};

struct PlanOptions {
  std::string version_override;  // --version, "" = from the image
  std::string auth_secret;       // --auth-secret, "" = generate
  bool skip_backup = false;
  bool backup_configured = false;
  // --replace-client-service: a legacy client Service named <c> that is
  // reached from outside may be replaced (W21 instead of B20).
  bool replace_client_service = false;
};

}  // namespace migrate
