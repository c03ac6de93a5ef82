// An in-memory world for the unit tests of member surgery's steps
// (docs/step-engine.md#the-seam): the Kubernetes objects and etcd's
// membership the steps read and write through admin::KubeCalls and
// admin::EtcdCalls, with the answers the real servers give (404, 409 on a
// stale resourceVersion or uid, AlreadyExists, finalizers that keep a
// deleted object, etcd's PeerURLExists / MemberNotFound / MemberNotLearner),
// and a count of every mutating call. Only what the steps call is here.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_calls.h"
#include "base/json_at.h"
#include "etcd/errors.h"
#include "kube/status_error.h"
#include "operator/names.h"

namespace admin_test {

class World final : public admin::KubeCalls, public admin::EtcdCalls {
 public:
  using json = nlohmann::json;

  // Every create, patch, delete; every MemberAdd, Promote, Remove, MoveLeader.
  int writes = 0;
  std::vector<std::string> log;  // "patch etcdclusters/c", ...
  // The operator's part a step waits for: a deleted Pod comes back (a new
  // uid, Ready), and a created Pod starts (Ready, an IP).
  bool operator_recreates_pods = true;
  std::vector<etcd::Member> etcd_members;
  std::uint64_t leader = 0;

  // --- objects ------------------------------------------------------------------
  void put(const kube::Resource& r, json object) {
    const std::string ns = base::string_at(object, "/metadata/namespace");
    const std::string name = base::string_at(object, "/metadata/name");
    stamp(object, true);
    objects_[key(r, ns, name)] = std::move(object);
  }
  const json* find(const kube::Resource& r, const std::string& ns, const std::string& name) const {
    auto it = objects_.find(key(r, ns, name));
    return it == objects_.end() ? nullptr : &it->second;
  }

  base::Result<json> get(const kube::Resource& r, std::string_view ns, std::string_view name) override {
    if (const json* o = find(r, std::string(ns), std::string(name))) return *o;
    return not_found("get", r, ns, name);
  }

  base::Result<json> list_all(const kube::Resource& r, std::string_view ns, const kube::ListOptions& o) override {
    json items = json::array();
    const std::string prefix = r.plural + "/" + std::string(ns) + "/";
    for (const auto& [k, v] : objects_) {
      if (k.rfind(prefix, 0) == 0 && selected(v, o.label_selector)) items.push_back(v);
    }
    return json{{"items", items}};
  }

  base::Result<json> create(const kube::Resource& r, std::string_view ns, const json& object) override {
    json o = object;
    o["metadata"]["namespace"] = std::string(ns);
    std::string name = base::string_at(o, "/metadata/name");
    if (name.empty()) {
      name = base::string_at(o, "/metadata/generateName") + "n" + std::to_string(++generated_);
      o["metadata"]["name"] = name;
    }
    wrote("create " + r.plural + "/" + name);
    if (find(r, std::string(ns), name) != nullptr) {
      return kube::status_error(409, R"({"kind":"Status","reason":"AlreadyExists","code":409})",
                                {"create", r, std::string(ns), name, ""});
    }
    stamp(o, true);
    if (r.plural == "pods" && operator_recreates_pods) start_pod(o);
    objects_[key(r, std::string(ns), name)] = o;
    return o;
  }

  base::Result<json> patch(const kube::Resource& r, std::string_view ns, std::string_view name, kube::PatchType,
                           const json& patch, const kube::PatchOptions& o) override {
    wrote("patch " + r.plural + "/" + std::string(name) + (o.subresource.empty() ? "" : "/" + o.subresource));
    auto it = objects_.find(key(r, std::string(ns), std::string(name)));
    if (it == objects_.end()) return not_found("patch", r, ns, name);
    json p = patch;
    const std::string guard = base::string_at(p, "/metadata/resourceVersion");
    if (!guard.empty() && guard != base::string_at(it->second, "/metadata/resourceVersion")) {
      return conflict("patch", r, ns, name);
    }
    if (p.contains("metadata")) p["metadata"].erase("resourceVersion");
    // A status patch changes the status only; a patch of the object never does.
    if (o.subresource == "status") p = json{{"status", p.value("status", json::object())}};
    else p.erase("status");
    it->second.merge_patch(p);
    stamp(it->second, false);
    json out = it->second;
    if (it->second.contains("/metadata/deletionTimestamp"_json_pointer) &&
        it->second.value("/metadata/finalizers"_json_pointer, json::array()).empty()) {
      objects_.erase(it);
    }
    return out;
  }

  base::Result<json> remove(const kube::Resource& r, std::string_view ns, std::string_view name,
                            const kube::DeleteOptions& o) override {
    wrote("delete " + r.plural + "/" + std::string(name));
    auto it = objects_.find(key(r, std::string(ns), std::string(name)));
    if (it == objects_.end()) return not_found("delete", r, ns, name);
    if (!o.precondition_uid.empty() && o.precondition_uid != base::string_at(it->second, "/metadata/uid")) {
      return conflict("delete", r, ns, name);
    }
    json gone = it->second;
    if (!it->second.value("/metadata/finalizers"_json_pointer, json::array()).empty()) {
      it->second["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
      stamp(it->second, false);
      return it->second;
    }
    objects_.erase(it);
    if (r.plural == "pods" && operator_recreates_pods) {
      gone["metadata"].erase("deletionTimestamp");
      stamp(gone, true);
      start_pod(gone);
      objects_[key(r, std::string(ns), std::string(name))] = gone;
    }
    return json{{"kind", "Status"}, {"status", "Success"}};
  }

  // --- etcd ---------------------------------------------------------------------
  base::Result<etcd::MemberList> member_list() override { return etcd::MemberList{{}, etcd_members}; }

  base::Result<etcd::MemberAddResult> member_add_learner(const std::string& peer_url) override {
    wrote("MemberAdd " + peer_url);
    for (const auto& m : etcd_members) {
      if (!m.peer_urls.empty() && m.peer_urls.front() == peer_url) {
        return etcd::map_error(9, "etcdserver: Peer URLs already exists", "MemberAdd", peer_url);
      }
    }
    etcd::Member m;
    m.id = 100 + etcd_members.size();
    m.peer_urls = {peer_url};
    m.is_learner = true;
    etcd_members.push_back(m);
    return etcd::MemberAddResult{{}, m, etcd_members};
  }

  base::Result<std::vector<etcd::Member>> member_promote(std::uint64_t id) override {
    wrote("MemberPromote");
    etcd::Member* m = member(id);
    if (m == nullptr) return etcd::map_error(5, "etcdserver: member not found", "MemberPromote", "");
    if (!m->is_learner) return etcd::map_error(9, "etcdserver: can only promote a learner member", "MemberPromote", "");
    m->is_learner = false;
    return etcd_members;
  }

  base::Result<std::vector<etcd::Member>> member_remove(std::uint64_t id) override {
    wrote("MemberRemove");
    for (auto it = etcd_members.begin(); it != etcd_members.end(); ++it) {
      if (it->id == id) {
        etcd_members.erase(it);
        if (leader == id) leader = etcd_members.empty() ? 0 : etcd_members.front().id;
        return etcd_members;
      }
    }
    return etcd::map_error(5, "etcdserver: member not found", "MemberRemove", "");
  }

  base::Result<etcd::Header> move_leader(const std::string&, std::uint64_t to) override {
    wrote("MoveLeader");
    leader = to;
    return etcd::Header{};
  }

  base::Result<etcd::StatusInfo> status(const std::string& endpoint) override {
    // The endpoint is a Pod's IP; the Pod's name is the etcd member's.
    for (const auto& [k, v] : objects_) {
      if (k.rfind("pods/", 0) != 0) continue;
      const std::string ip = base::string_at(v, "/status/podIP");
      if (ip.empty() || endpoint.find("//" + ip + ":") == std::string::npos) continue;
      if (const etcd::Member* m = named(base::string_at(v, "/metadata/name"))) return status_info(*m, endpoint);
    }
    return base::make_error(base::ErrorKind::CannotConnect, "connection refused", endpoint);
  }

  std::vector<etcd::MemberResult<etcd::StatusInfo>> status_all(const std::vector<std::string>& endpoints) override {
    std::vector<etcd::MemberResult<etcd::StatusInfo>> out;
    for (const auto& e : endpoints) out.push_back({e, status(e)});
    return out;
  }

  base::Result<etcd::StatusInfo> status_of(const admin::MemberTarget& t) override { return status(t.endpoint); }

  etcd::Member* member(std::uint64_t id) {
    for (auto& m : etcd_members) {
      if (m.id == id) return &m;
    }
    return nullptr;
  }
  const etcd::Member* named(const std::string& name) const {
    for (const auto& m : etcd_members) {
      if (m.name == name) return &m;
    }
    return nullptr;
  }

 private:
  static std::string key(const kube::Resource& r, const std::string& ns, const std::string& name) {
    return r.plural + "/" + ns + "/" + name;
  }
  void wrote(std::string what) {
    ++writes;
    log.push_back(std::move(what));
  }
  void stamp(json& o, bool fresh) {
    o["metadata"]["resourceVersion"] = std::to_string(++version_);
    if (fresh || !o["metadata"].contains("uid")) o["metadata"]["uid"] = "uid-" + std::to_string(version_);
  }
  // A Pod the operator (or the kubelet) started: Ready, an IP, and etcd
  // names the member that joined through it.
  void start_pod(json& pod) {
    const std::string name = base::string_at(pod, "/metadata/name");
    pod["status"]["podIP"] = "10.0.1." + std::to_string(++ips_);
    pod["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
    for (auto& m : etcd_members) {
      if (m.name.empty() && !m.peer_urls.empty() && m.peer_urls.front().find("//" + name + ".") != std::string::npos) {
        m.name = name;
      }
    }
  }
  etcd::StatusInfo status_info(const etcd::Member& m, const std::string& endpoint) const {
    etcd::StatusInfo st;
    st.endpoint = endpoint;
    st.header.member_id = m.id;
    st.leader = leader;
    st.is_learner = m.is_learner;
    st.raft_applied_index = 10;
    return st;
  }
  static bool selected(const json& o, const std::string& selector) {
    std::size_t at = 0;
    while (at < selector.size()) {
      const auto comma = selector.find(',', at);
      const std::string term = selector.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      const auto eq = term.find('=');
      const json* labels = base::find_at(o, "/metadata/labels");
      if (labels == nullptr || !labels->is_object()) return false;
      auto it = labels->find(term.substr(0, eq));
      if (it == labels->end() || !it->is_string() || it->get<std::string>() != term.substr(eq + 1)) return false;
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    return true;
  }
  static base::Error not_found(const char* verb, const kube::Resource& r, std::string_view ns, std::string_view name) {
    return kube::status_error(404, json{{"kind", "Status"}, {"reason", "NotFound"}, {"details", {{"name", name}}}, {"code", 404}}.dump(),
                              {verb, r, std::string(ns), std::string(name), ""});
  }
  static base::Error conflict(const char* verb, const kube::Resource& r, std::string_view ns, std::string_view name) {
    return kube::status_error(409, R"({"kind":"Status","reason":"Conflict","message":"the object has been modified","code":409})",
                              {verb, r, std::string(ns), std::string(name), ""});
  }

  std::map<std::string, json> objects_;
  long long version_ = 0;
  int generated_ = 0;
  int ips_ = 0;
};

}  // namespace admin_test
