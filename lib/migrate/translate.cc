#include "migrate/translate.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <map>
#include <set>

#include "base/json_at.h"
#include "base/text.h"
#include "operator/names.h"
#include "operator/quantity.h"
#include "operator/release_owner.h"

namespace migrate {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

bool is_semver_triplet(const std::string& s) {
  int parts = 0;
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == start) return false;
    ++parts;
    if (i == s.size()) break;
    if (s[i] != '.' || parts == 3) return false;
    ++i;
    if (i == s.size()) return false;
  }
  return parts == 3;
}

bool parse_int64_strict(const std::string& s, long long& out) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (i == s.size()) return false;
  for (size_t j = i; j < s.size(); ++j) {
    if (s[j] < '0' || s[j] > '9') return false;
  }
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || end != s.c_str() + s.size()) return false;
  out = v;
  return true;
}

namespace {

bool present(const json* v) {
  if (v == nullptr || v->is_null()) return false;
  if (v->is_array() || v->is_object() || v->is_string()) return !v->empty() && !(v->is_string() && v->get<std::string>().empty());
  return true;
}

void add(SpecTranslation& t, const char* id, std::string message) { t.verdicts.push_back({id, std::move(message)}); }

std::string translate_version(const op::LegacyCluster& legacy, const PlanOptions& options, SpecTranslation& t) {
  if (!options.version_override.empty()) {
    if (!is_semver_triplet(options.version_override)) {
      add(t, "B2", "--version " + base::quoted(options.version_override) +
                       " is not an etcd version of the form X.Y.Z (digits only, no leading v)");
      return {};
    }
    return options.version_override;
  }
  std::string image;
  if (const auto* c = legacy.etcd_container(); c != nullptr) {
    auto read = base::string_field(*c, "/image");
    if (!read) {
      // A hand-written podTemplate the legacy API does not check
      // (docs/rules.md#typed-reads): no version can be read from it.
      add(t, "B3", "spec.podTemplate.spec.containers[" + std::string(op::kLegacyContainer) + "]." +
                       read.error().message + "; give --version X.Y.Z or fix the image");
      return {};
    }
    image = *read;
  }
  if (image.empty()) {
    image = std::string(op::kLegacyDefaultImage);
    add(t, "W1", "the podTemplate names no etcd image; assuming the legacy default " + image);
  }
  auto colon = image.rfind(':');
  std::string tag = colon == std::string::npos ? std::string() : image.substr(colon + 1);
  std::string version = tag.rfind('v', 0) == 0 ? tag.substr(1) : tag;
  if (tag.empty() || !is_semver_triplet(version)) {
    add(t, "B3", "cannot read an etcd version X.Y.Z from image " + base::quoted(image) +
                     (tag.empty() ? " (no tag)" : " (tag " + base::quoted(tag) + ")") +
                     "; pass --version X.Y.Z with the version the pods run");
    return {};
  }
  return version;
}

// Returns the storage request in bytes (0 when none) for the quota default.
long long translate_storage(const op::LegacyCluster& legacy, SpecTranslation& t) {
  const json& spec = legacy.spec;
  if (base::find_at(spec, "/storage/emptyDir") != nullptr) {
    add(t, "B4", "spec.storage.emptyDir: the data lives in pod-bound emptyDir volumes with no PVC to hand over; "
                 "an in-place adoption is impossible (recreate the cluster under the new operator and restore a snapshot)");
    return 0;
  }
  const json* vct = base::find_at(spec, "/storage/volumeClaimTemplate");
  const json* request = vct ? base::find_at(*vct, "/spec/resources/requests/storage") : nullptr;
  // An explicit storageClassName "" counts as set and is carried as "".
  const json* klass = vct ? base::find_at(*vct, "/spec/storageClassName") : nullptr;
  const json* modes = vct ? base::find_at(*vct, "/spec/accessModes") : nullptr;
  bool set = request != nullptr || klass != nullptr || present(modes) || legacy.claim_name_is_custom();
  if (!set) {
    add(t, "B5", "spec.storage has neither emptyDir nor a usable volumeClaimTemplate: the legacy operator "
                 "ran such clusters on disk-backed emptyDir volumes; recreate the cluster under the new operator");
    return 0;
  }
  if (legacy.claim_name_is_custom()) {
    add(t, "B15", "spec.storage.volumeClaimTemplate.metadata.name is " + base::quoted(legacy.claim_name()) +
                      ": the new operator only uses PVCs named data-<member>, so these PVCs cannot be adopted in place");
  }
  ojson storage = ojson::object();
  long long bytes = 0;
  if (request != nullptr) {
    std::string text = request->is_string() ? request->get<std::string>() : request->dump();
    auto q = op::parse_quantity(text);
    storage["size"] = q ? q->canonical() : text;
    if (q) bytes = q->ceil_int();
  } else {
    storage["size"] = "1Gi";
    add(t, "W2", "the volumeClaimTemplate has no storage request; the new spec.storage.size defaults to 1Gi");
  }
  if (klass != nullptr) storage["storageClassName"] = *klass;
  t.spec["storage"] = storage;
  return bytes;
}

ojson canonical_resources(const json& resources) {
  ojson out = ojson::object();
  for (const char* part : {"limits", "requests", "claims"}) {
    auto it = resources.find(part);
    if (it == resources.end() || it->is_null()) continue;
    if (std::string(part) == "claims") {
      out[part] = *it;
      continue;
    }
    ojson m = ojson::object();
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      std::string text = kv->is_string() ? kv->get<std::string>() : kv->dump();
      auto c = op::canonical_quantity(text);
      m[kv.key()] = c ? *c : text;
    }
    out[part] = m;
  }
  return out;
}

// Returns Helm's and Flux's marks found in the pod template's metadata:
// they are not carried into additionalMetadata (the operator would put them
// on its objects, and Helm would then take those for its own).
std::vector<std::string> translate_pod_template(const op::LegacyCluster& legacy, SpecTranslation& t) {
  const json& spec = legacy.spec;
  std::vector<std::string> dropped;
  std::vector<std::string> release_marks;

  ojson meta = ojson::object();
  for (const char* key : {"labels", "annotations"}) {
    const json* m = base::find_at(spec, (std::string("/podTemplate/metadata/") + key).c_str());
    if (m == nullptr || !m->is_object() || m->empty()) continue;
    ojson kept = ojson::object();
    for (auto it = m->begin(); it != m->end(); ++it) {
      std::string value = it->is_string() ? it->get<std::string>() : std::string();
      if (op::is_release_mark(it.key(), value)) {
        release_marks.push_back(it.key());
      } else {
        kept[it.key()] = *it;
      }
    }
    if (!kept.empty()) meta[key] = kept;
  }
  if (!meta.empty()) t.spec["additionalMetadata"] = meta;

  const json* etcd = legacy.etcd_container();
  t.spec["resources"] = ojson::object();
  if (etcd != nullptr) {
    if (auto r = etcd->find("resources"); r != etcd->end() && r->is_object()) {
      t.spec["resources"] = canonical_resources(*r);
    }
    for (const char* field : {"command", "args", "env", "envFrom", "volumeMounts", "ports", "livenessProbe",
                              "readinessProbe", "startupProbe", "securityContext"}) {
      auto it = etcd->find(field);
      if (it != etcd->end() && present(&*it)) dropped.push_back(std::string("containers[etcd].") + field);
    }
  }
  if (const json* containers = base::find_at(spec, "/podTemplate/spec/containers");
      containers != nullptr && containers->is_array()) {
    for (const auto& c : *containers) {
      std::string name = c.is_object() ? base::string_at(c, "/name") : "";
      if (name != op::kLegacyContainer) dropped.push_back("containers[" + name + "] (sidecar)");
    }
  }
  const json* pod = base::find_at(spec, "/podTemplate/spec");
  if (pod != nullptr && pod->is_object()) {
    for (const char* field : {"affinity", "topologySpreadConstraints"}) {
      auto it = pod->find(field);
      if (it != pod->end() && !it->is_null()) t.spec[field] = *it;
    }
    if (auto it = pod->find("imagePullSecrets"); it != pod->end() && it->is_array() && !it->empty()) {
      t.spec["imagePullSecrets"] = *it;
    }
    for (const char* field : {"nodeSelector", "tolerations", "initContainers", "volumes", "serviceAccountName",
                              "priorityClassName", "hostAliases", "dnsPolicy", "dnsConfig", "runtimeClassName",
                              "schedulerName", "terminationGracePeriodSeconds"}) {
      auto it = pod->find(field);
      if (it != pod->end() && present(&*it)) dropped.push_back(field);
    }
    if (auto it = pod->find("securityContext"); it != pod->end() && it->is_object() && !it->empty()) {
      dropped.push_back("securityContext");
    }
    if (auto it = pod->find("hostNetwork"); it != pod->end() && it->is_boolean() && it->get<bool>()) {
      dropped.push_back("hostNetwork");
    }
  }
  if (!dropped.empty()) {
    std::sort(dropped.begin(), dropped.end());
    std::string list;
    for (const auto& d : dropped) list += (list.empty() ? "" : ", ") + d;
    add(t, "W3", "podTemplate items the new operator does not take are dropped: " + list);
  }
  return release_marks;
}

// A chart renders the legacy EtcdCluster (docs/adoption-verdicts.md, W22):
// after the adoption the next helm upgrade or Flux reconcile creates it again.
void translate_release_owner(const op::LegacyCluster& legacy, const std::vector<std::string>& pod_marks,
                             SpecTranslation& t) {
  json object = {{"metadata", legacy.metadata}};
  auto owner = op::release_owner(object);
  if (!owner && pod_marks.empty()) return;
  std::string dropped;
  for (const auto& k : pod_marks) dropped += (dropped.empty() ? "" : ", ") + k;
  if (!owner) {
    add(t, "W22", "the podTemplate's metadata carries Helm or Flux ownership marks (" + dropped +
                      "): they are not carried into spec.additionalMetadata, so no object of the new operator "
                      "carries them (Helm would take it for its own)");
    return;
  }
  std::string fix = owner->flux() ? "suspend the HelmRelease (flux suspend helmrelease -n " + owner->flux_namespace + " " +
                                        owner->flux_name + ")"
                                  : "stop upgrading the release";
  add(t, "W22", "the legacy EtcdCluster is rendered by " + owner->describe() +
                    ": after the adoption the chart still renders it, so the next " +
                    (owner->flux() ? "Flux reconcile" : "helm upgrade") +
                    " creates it again beside the adopted cluster; " + fix +
                    " or move the chart to the " + std::string(op::kApiVersion) +
                    " API before or right after adopting. The new objects get none of Helm's or Flux's ownership "
                    "labels and annotations (Helm would take them for its own)" +
                    (dropped.empty() ? std::string() : "; dropped from the podTemplate's metadata: " + dropped));
}

void translate_options(const op::LegacyCluster& legacy, long long storage_bytes, SpecTranslation& t) {
  std::map<std::string, std::string> legacy_options;  // byte order, as the translation processes them
  if (const json* o = base::find_at(legacy.spec, "/options"); o != nullptr && o->is_object()) {
    for (auto it = o->begin(); it != o->end(); ++it) {
      legacy_options[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
    }
  }
  ojson options = ojson::object();
  std::string unknown;
  for (const auto& [key, value] : legacy_options) {
    if (key == "quota-backend-bytes" || key == "snapshot-count") {
      long long v = 0;
      if (!parse_int64_strict(value, v)) {
        add(t, "B6", "spec.options " + key + "=" + base::quoted(value) +
                         " is not a base-10 integer (no units, spaces or underscores); fix the option first");
        continue;
      }
      options[key == "snapshot-count" ? "snapshotCount" : "quotaBackendBytes"] = v;
    } else if (key == "auto-compaction-mode") {
      if (value != "periodic" && value != "revision") {
        add(t, "B7", "spec.options auto-compaction-mode=" + base::quoted(value) + " must be periodic or revision");
        continue;
      }
      options["autoCompactionMode"] = value;
    } else if (key == "auto-compaction-retention") {
      if (!value.empty()) options["autoCompactionRetention"] = value;
    } else {
      unknown += (unknown.empty() ? "" : ", ") + key + "=" + base::quoted(value);
    }
  }
  if (!unknown.empty()) {
    add(t, "W7", "spec.options keys without a v1alpha2 field are dropped (the etcd flags go away): " + unknown);
  }
  // docs/rules.md#implicit-etcd-flags: what the legacy operator passed to etcd on its own stays in force.
  std::vector<std::string> defaults;
  if (!legacy_options.count("auto-compaction-retention")) {
    options["autoCompactionRetention"] = "5m";
    defaults.push_back("autoCompactionRetention=5m");
  }
  if (!legacy_options.count("snapshot-count")) {
    options["snapshotCount"] = 10000;
    defaults.push_back("snapshotCount=10000");
  }
  if (!legacy_options.count("quota-backend-bytes") && storage_bytes > 0) {
    long long quota = static_cast<long long>(static_cast<op::int128>(storage_bytes) * 95 / 100);
    options["quotaBackendBytes"] = quota;
    defaults.push_back("quotaBackendBytes=" + std::to_string(quota));
  }
  if (!defaults.empty()) {
    std::string list;
    for (const auto& d : defaults) list += (list.empty() ? "" : ", ") + d;
    add(t, "N10", "the legacy operator's implicit etcd flags are written into spec.options so they stay in force: " + list);
  }
  t.spec["options"] = options;
}

// Whether the ca.crt of Secret `into` already holds every CA certificate of
// Secret `from`, as inspection read them; false when either is unknown.
bool holds_cas_of(const ClusterFacts& facts, const std::string& into, const std::string& from) {
  auto i = facts.secret_cas.find(into), f = facts.secret_cas.find(from);
  return i != facts.secret_cas.end() && f != facts.secret_cas.end() && pem_holds_all(i->second, f->second);
}

void translate_tls(const op::LegacyCluster& legacy, const std::vector<LiveMember>& members, const ClusterFacts& facts,
                   SpecTranslation& t) {
  std::string s = legacy.tls_secret("serverSecret"), c = legacy.tls_secret("clientSecret"),
              sca = legacy.tls_secret("serverTrustedCASecret"), cca = legacy.tls_secret("clientTrustedCASecret"),
              p = legacy.tls_secret("peerSecret"), pca = legacy.tls_secret("peerTrustedCASecret");
  ojson tls = ojson::object();
  ojson member_tls = ojson::object();
  if (!s.empty()) {
    ojson client = {{"serverSecretRef", {{"name", s}}}};
    if (!c.empty()) client["operatorClientSecretRef"] = {{"name", c}};
    tls["client"] = client;
    member_tls["clientServerSecretRef"] = {{"name", s}};
    if (!c.empty()) member_tls["clientMTLS"] = true;
    if (!sca.empty() && sca != s && !holds_cas_of(facts, s, sca)) {
      add(t, "W8", "serverTrustedCASecret " + base::quoted(sca) + " is dropped: copy its ca.crt into Secret " + base::quoted(s) +
                       " before starting the operator (v1alpha2 reads the client-plane CA from the server Secret's ca.crt)");
    }
    if (!cca.empty() && cca != s && !holds_cas_of(facts, s, cca)) {
      add(t, "W9", "clientTrustedCASecret " + base::quoted(cca) + " is dropped: v1alpha2 uses the ca.crt of Secret " + base::quoted(s) +
                       " as etcd's trusted client CA; merge the CA of " + base::quoted(cca) + " into it if client certificates are signed by it");
    }
  } else if (!c.empty() || !sca.empty() || !cca.empty()) {
    add(t, "W10", "clientSecret/serverTrustedCASecret/clientTrustedCASecret without serverSecret are dropped "
                  "(they enabled nothing in the legacy operator either)");
  }
  if (!p.empty()) {
    tls["peer"] = {{"secretRef", {{"name", p}}}};
    member_tls["peerSecretRef"] = {{"name", p}};
    if (!pca.empty() && pca != p && !holds_cas_of(facts, p, pca)) {
      add(t, "W11", "peerTrustedCASecret " + base::quoted(pca) + " is dropped: copy its ca.crt into Secret " + base::quoted(p));
    }
  } else {
    if (!pca.empty()) add(t, "W12", "peerTrustedCASecret " + base::quoted(pca) + " without peerSecret is dropped");
    // docs/rules.md#translation: the legacy operator ran --peer-auto-tls without a peer Secret.
    std::vector<const LiveMember*> sorted;
    for (const auto& m : members) sorted.push_back(&m);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->name < b->name; });
    for (const auto* m : sorted) {
      if (m->peer_url.rfind("https://", 0) == 0) {
        t.annotations[std::string(op::kAnnPeerAutoTls)] = "true";
        member_tls["peerAutoTLS"] = true;
        t.verdicts.push_back(
            {"S1", "the cluster runs peer auto-TLS (member " + (m->name.empty() ? m->id : m->name) + " advertises " +
                       m->peer_url +
                       "): it is carried forward through the annotation " + std::string(op::kAnnPeerAutoTls) +
                       " so new members can still peer; the peer plane is encrypted but unauthenticated (anything "
                       "reaching port 2380 can join); moving to real mTLS later (spec.tls.peer.secretRef or "
                       "cert-manager) means delete-and-recreate because spec.tls is immutable"});
        break;
      }
    }
  }
  if (!tls.empty()) t.spec["tls"] = tls;
  t.member_tls = member_tls.empty() ? ojson() : member_tls;
}

void translate_auth(const op::LegacyCluster& legacy, const ClusterFacts& facts, const PlanOptions& options,
                    SpecTranslation& t) {
  if (!legacy.enable_auth()) {
    if (facts.live_auth && !facts.inspect_error) {
      add(t, "W20", "auth is enabled in etcd although the legacy spec says enableAuth: false (the legacy operator "
                    "disables it on every reconcile); the tool disables it too");
    }
    return;
  }
  if (legacy.tls_secret("serverSecret").empty()) {
    add(t, "B8", "spec.security.enableAuth is true without tls.serverSecret: v1alpha2 auth requires client TLS");
    return;
  }
  t.spec_auth = true;
  if (!options.auth_secret.empty()) {
    t.root_secret = options.auth_secret;
    if (facts.auth_secret == ClusterFacts::AuthSecret::Missing) {
      add(t, "B19", "--auth-secret " + base::quoted(options.auth_secret) + " does not exist in namespace " + base::quoted(legacy.ns) +
                        "; create it (type kubernetes.io/basic-auth, key password) or leave the flag out to generate one");
    } else if (facts.auth_secret == ClusterFacts::AuthSecret::NoPassword) {
      add(t, "B19", "--auth-secret " + base::quoted(options.auth_secret) + " in namespace " + base::quoted(legacy.ns) +
                        " has no non-empty key password; add one or leave the flag out to generate a Secret");
    }
  } else {
    t.root_secret = op::root_credentials_secret(legacy.name);
    t.generate_root_secret = !facts.root_secret_exists;
    add(t, "N1", (facts.root_secret_exists ? "the root credentials Secret " + base::quoted(t.root_secret) + " exists and is kept"
                                           : "a root credentials Secret " + base::quoted(t.root_secret) +
                                                 " is generated (password never shown)") +
                     "; point etcd consumers (e.g. a Kamaji DataStore's basicAuth) at it");
  }
  t.spec["auth"] = {{"enabled", true}, {"rootCredentialsSecretRef", {{"name", t.root_secret}}}};
  add(t, "N2", "auth: the tool disables auth and replaces the legacy password-less root user with one whose "
               "password is the Secret's; the new operator turns auth back on with that Secret");
  add(t, "W13", "auth stays off from the tool's auth step until the new operator enables it again; plan the window");
}

}  // namespace

SpecTranslation translate_spec(const op::LegacyCluster& legacy, const std::vector<LiveMember>& members,
                               const ClusterFacts& facts, const PlanOptions& options) {
  SpecTranslation t;
  const json& spec = legacy.spec;
  t.spec["replicas"] = static_cast<int>(members.size());
  std::string version = translate_version(legacy, options, t);
  if (!version.empty()) t.spec["version"] = version;
  long long bytes = translate_storage(legacy, t);
  std::vector<std::string> release_marks = translate_pod_template(legacy, t);
  translate_options(legacy, bytes, t);
  translate_tls(legacy, members, facts, t);
  translate_auth(legacy, facts, options, t);
  translate_release_owner(legacy, release_marks, t);

  if (base::find_at(spec, "/serviceTemplate") != nullptr) {
    add(t, "W4", "spec.serviceTemplate is dropped: the operator owns the client Service, named " +
                     base::quoted(op::native_client_service(legacy.name)));
  }
  if (base::find_at(spec, "/headlessServiceTemplate") != nullptr) {
    add(t, "W5", "spec.headlessServiceTemplate is dropped: the operator owns the headless Service, named " +
                     base::quoted(legacy.name));
  }
  if (base::find_at(spec, "/podDisruptionBudgetTemplate") != nullptr) {
    add(t, "W6", "spec.podDisruptionBudgetTemplate is dropped: the operator creates its own PDB with "
                 "minAvailable = n/2+1 of the voters");
  }
  if (base::find_at(spec, "/bootstrap/restore") != nullptr) {
    add(t, "W14", "spec.bootstrap.restore is dropped: it only applied when the legacy cluster was created, and an "
                  "adopted cluster never bootstraps");
  }
  // Learners are not members the legacy spec counts (they block the plan, B9).
  long long voters = std::count_if(members.begin(), members.end(), [](const LiveMember& m) { return !m.is_learner; });
  long long learners = static_cast<long long>(members.size()) - voters;
  if (const json* r = base::find_at(spec, "/replicas"); r != nullptr && r->is_number_integer() &&
                                                      !facts.inspect_error && r->get<long long>() != voters) {
    add(t, "W15", "legacy spec.replicas is " + std::to_string(r->get<long long>()) + " but etcd has " +
                      std::to_string(voters) + " voting member" + (voters == 1 ? "" : "s") +
                      (learners > 0 ? " (and " + std::to_string(learners) + " learner" + (learners == 1 ? "" : "s") + ")" : "") +
                      "; adopting with the live count");
  }
  return t;
}

namespace {

// The certificates of a PEM text, each as its base64 body without whitespace.
std::vector<std::string> pem_certificates(const std::string& pem) {
  static const std::string kBegin = "-----BEGIN CERTIFICATE-----", kEnd = "-----END CERTIFICATE-----";
  std::vector<std::string> out;
  for (size_t at = pem.find(kBegin); at != std::string::npos; at = pem.find(kBegin, at)) {
    size_t end = pem.find(kEnd, at);
    if (end == std::string::npos) break;
    std::string body;
    for (size_t i = at + kBegin.size(); i < end; ++i) {
      if (!std::isspace(static_cast<unsigned char>(pem[i]))) body += pem[i];
    }
    out.push_back(std::move(body));
    at = end + kEnd.size();
  }
  return out;
}

}  // namespace

bool pem_holds_all(const std::string& bundle, const std::string& certs) {
  auto have = pem_certificates(bundle), want = pem_certificates(certs);
  if (want.empty()) return false;
  return std::all_of(want.begin(), want.end(),
                     [&](const std::string& c) { return std::find(have.begin(), have.end(), c) != have.end(); });
}

}  // namespace migrate
