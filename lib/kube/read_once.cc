#include "kube/read_once.h"

#include <utility>

#include "kube/client.h"
#include "kube/status_error.h"

namespace kube {

ReadOnce::ReadOnce(Client& client, Resource resource, std::string ns)
    : client_(client), resource_(std::move(resource)), ns_(std::move(ns)) {}

base::Result<nlohmann::json> ReadOnce::get(const std::string& name) {
  if (auto it = read_.find(name); it != read_.end()) return it->second;
  auto got = client_.get(resource_, ns_, name);
  if (got || is_not_found(got.error())) read_.emplace(name, got);
  return got;
}

}  // namespace kube
