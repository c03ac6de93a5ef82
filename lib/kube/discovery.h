// Which resources the server serves, read once per group/version and kept
// for the run. It is what tells "this API is not served" from "this object
// does not exist" when a GET answers 404.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "kube/resource.h"
#include "kube/transport.h"

namespace kube {

struct ApiResourceInfo {
  std::string name;  // plural, or "pods/status" for a subresource
  std::string kind;
  bool namespaced = false;
  std::vector<std::string> verbs;
};

class Discovery {
 public:
  // GETs a discovery path ("/api/v1", "/apis/apps/v1"); the client passes its own.
  using Fetch = std::function<base::Result<HttpResponse>(const std::string& path)>;
  explicit Discovery(Fetch fetch) : fetch_(std::move(fetch)) {}

  // The resources of one group/version; a NotServed error when it is not served.
  base::Result<std::vector<ApiResourceInfo>> resources(const std::string& group, const std::string& version);
  // Ok when the server serves `r` (its group, version and plural); else NotServed.
  base::Status served(const Resource& r);
  // The served resource with kind and scope as the server says.
  base::Result<Resource> find(const std::string& group, const std::string& version, const std::string& plural);
  int fetches() const;

 private:
  Fetch fetch_;
  mutable std::mutex mu_;
  std::map<std::string, base::Result<std::vector<ApiResourceInfo>>> cache_;
  int fetches_ = 0;
};

// Parses an APIResourceList body.
base::Result<std::vector<ApiResourceInfo>> parse_api_resource_list(std::string_view body);

}  // namespace kube
