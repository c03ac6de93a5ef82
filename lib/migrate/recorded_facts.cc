#include "migrate/recorded_facts.h"

#include "base/json_at.h"
#include "operator/meta.h"
#include "operator/names.h"

namespace migrate {

using json = nlohmann::json;

namespace {

base::Status read_member(const json& facts, const std::string& name, RecordedMember& m) {
  const std::string at = "/members/" + base::pointer_token(name);
  auto object = base::object_field(facts, at);
  if (!object) return std::move(object).error();
  if (*object == nullptr) return base::field_error(at, "an object", json());
  auto id = base::string_field(facts, at + "/memberID");
  if (!id) return std::move(id).error();
  auto uid = base::string_field(facts, at + "/podUID");
  if (!uid) return std::move(uid).error();
  auto restarts = base::int_field(facts, at + "/restarts", 0, 0);
  if (!restarts) return std::move(restarts).error();
  auto volume = base::string_field(facts, at + "/volumeName");
  if (!volume) return std::move(volume).error();
  auto hash = base::int_field(facts, at + "/hashKV", -1, 0, UINT32_MAX);
  if (!hash) return std::move(hash).error();
  m.member_id = std::move(*id);
  m.pod_uid = std::move(*uid);
  m.restarts = *restarts;
  m.volume_name = std::move(*volume);
  if (*hash >= 0) m.hash_kv = static_cast<std::uint32_t>(*hash);
  return {};
}

base::Result<RecordedFacts> parse(const json& facts) {
  if (!facts.is_object()) return base::field_error("", "an object", facts);
  RecordedFacts f;
  auto legacy = base::string_field(facts, "/legacyUID");
  if (!legacy) return std::move(legacy).error();
  auto cluster_id = base::string_field(facts, "/clusterID");
  if (!cluster_id) return std::move(cluster_id).error();
  auto revision = base::int_field(facts, "/revision", 0, 0);
  if (!revision) return std::move(revision).error();
  auto members = base::object_field(facts, "/members");
  if (!members) return std::move(members).error();
  if (*members == nullptr) return base::field_error("/members", "an object", json());
  for (auto it = (*members)->begin(); it != (*members)->end(); ++it) {
    if (auto s = read_member(facts, it.key(), f.members[it.key()]); !s) return std::move(s).error();
  }
  auto revisions = base::array_field(facts, "/controllerRevisions");
  if (!revisions) return std::move(revisions).error();
  if (*revisions != nullptr) {
    for (size_t i = 0; i < (*revisions)->size(); ++i) {
      auto name = base::string_field(facts, "/controllerRevisions/" + std::to_string(i));
      if (!name) return std::move(name).error();
      f.controller_revisions.push_back(std::move(*name));
    }
  }
  f.legacy_uid = std::move(*legacy);
  f.cluster_id = std::move(*cluster_id);
  f.revision = *revision;
  return f;
}

}  // namespace

base::Result<RecordedFacts> read_recorded_facts(const json& cluster) {
  const std::string object = "EtcdCluster " + base::string_at(cluster, "/metadata/namespace") + "/" +
                             base::string_at(cluster, "/metadata/name");
  const std::string where = "annotation " + std::string(op::kAnnAdoption);
  const std::string text = op::annotation(cluster, op::kAnnAdoption);
  if (text.empty()) {
    return base::make_error(base::ErrorKind::NotFound, where + " with the facts recorded by adopt --apply is missing",
                            object);
  }
  const std::string fix = "put back the value adopt --apply wrote (the annotation is its record of the adoption)";
  json facts = json::parse(text, nullptr, false);
  if (facts.is_discarded()) {
    return base::make_error(base::ErrorKind::Failed, where + ": not JSON (" + std::to_string(text.size()) +
                            " bytes; cut short or edited?)", object, fix);
  }
  auto f = parse(facts);
  if (!f) {
    base::Error e = std::move(f).error();
    e.message = where + ": " + e.message;
    return std::move(e).on(object).with_hint(fix);
  }
  return f;
}

}  // namespace migrate
