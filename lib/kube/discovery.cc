#include "kube/discovery.h"

#include <nlohmann/json.hpp>

#include "base/json_at.h"
#include "kube/status_error.h"

namespace kube {

namespace {
base::Error not_served(const std::string& what) {
  base::Error e = base::make_error(base::ErrorKind::Failed, "the server does not serve " + what, {},
                                 "is the API installed (its CustomResourceDefinition) and that version served?");
  e.reason = kReasonNotServed;
  e.status = 404;
  return e;
}
}  // namespace

base::Result<std::vector<ApiResourceInfo>> parse_api_resource_list(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object() || !j.contains("resources") || !j["resources"].is_array()) {
    return base::make_error(base::ErrorKind::Failed, "the server's discovery answer is not an APIResourceList");
  }
  std::vector<ApiResourceInfo> out;
  for (const auto& r : j["resources"]) {
    if (!r.is_object()) continue;
    ApiResourceInfo i;
    i.name = base::string_at(r, "/name");
    i.kind = base::string_at(r, "/kind");
    i.namespaced = base::bool_at(r, "/namespaced");
    if (r.contains("verbs") && r["verbs"].is_array()) {
      for (const auto& v : r["verbs"]) {
        if (v.is_string()) i.verbs.push_back(v.get<std::string>());
      }
    }
    out.push_back(std::move(i));
  }
  return out;
}

base::Result<std::vector<ApiResourceInfo>> Discovery::resources(const std::string& group, const std::string& version) {
  std::string gv = group.empty() ? version : group + "/" + version;
  std::lock_guard lock(mu_);
  if (auto it = cache_.find(gv); it != cache_.end()) return it->second;
  std::string path = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  ++fetches_;
  auto resp = fetch_(path);
  if (!resp) return std::move(resp).error();  // not cached: a broken connection may heal
  base::Result<std::vector<ApiResourceInfo>> result = std::vector<ApiResourceInfo>{};
  if (resp->status == 404) {
    result = not_served(gv);
  } else if (resp->status >= 400) {
    RequestContext ctx{"get", Resource{group, version, "", "", false}, "", "", ""};
    return status_error(resp->status, resp->body, ctx);
  } else {
    result = parse_api_resource_list(resp->body);
  }
  cache_.emplace(gv, result);
  return result;
}

base::Status Discovery::served(const Resource& r) {
  auto f = find(r.group, r.version, r.plural);
  if (!f) return std::move(f).error();
  return {};
}

base::Result<Resource> Discovery::find(const std::string& group, const std::string& version,
                                      const std::string& plural) {
  auto list = resources(group, version);
  if (!list) return std::move(list).error();
  for (const auto& i : *list) {
    if (i.name == plural) return Resource{group, version, plural, i.kind, i.namespaced};
  }
  return not_served(plural + (group.empty() ? "" : "." + group) + " (" +
                    (group.empty() ? version : group + "/" + version) + ")");
}

int Discovery::fetches() const {
  std::lock_guard lock(mu_);
  return fetches_;
}

}  // namespace kube
