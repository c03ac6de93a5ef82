// GETs of one resource in one namespace, each name read at most once: the
// adoption plan's inspection reads a legacy cluster's TLS Secrets to dial
// etcd and again to judge its certificates, and a second read of the same
// Secret in the same plan would only cost a request.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "kube/resource.h"

namespace kube {

class Client;

class ReadOnce {
 public:
  ReadOnce(Client& client, Resource resource, std::string ns);
  ReadOnce(const ReadOnce&) = delete;
  ReadOnce& operator=(const ReadOnce&) = delete;

  // As Client::get. The object and a NotFound answer are kept and given
  // again; other errors are not: the next get() asks again.
  base::Result<nlohmann::json> get(const std::string& name);

 private:
  Client& client_;
  Resource resource_;
  std::string ns_;
  std::map<std::string, base::Result<nlohmann::json>> read_;
};

}  // namespace kube
