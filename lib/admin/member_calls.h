// The Kubernetes and etcd calls the steps of member surgery make, as two
// narrow interfaces (docs/step-engine.md#the-seam). Production runs the
// steps over the real clients (the two classes below, nothing else); the
// steps' unit tests run them over an in-memory world of their own. The
// interfaces hold only what the steps call, so the steps cannot reach
// past them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/target.h"
#include "base/result.h"
#include "etcd/client.h"
#include "etcd/fanout.h"
#include "kube/client.h"

namespace admin {

struct Session;

class KubeCalls {
 public:
  virtual ~KubeCalls() = default;
  virtual base::Result<nlohmann::json> get(const kube::Resource& r, std::string_view ns, std::string_view name) = 0;
  // Every page, items concatenated into one list object.
  virtual base::Result<nlohmann::json> list_all(const kube::Resource& r, std::string_view ns,
                                               const kube::ListOptions& o = {}) = 0;
  virtual base::Result<nlohmann::json> create(const kube::Resource& r, std::string_view ns,
                                             const nlohmann::json& object) = 0;
  virtual base::Result<nlohmann::json> patch(const kube::Resource& r, std::string_view ns, std::string_view name,
                                            kube::PatchType type, const nlohmann::json& patch,
                                            const kube::PatchOptions& o = {}) = 0;
  virtual base::Result<nlohmann::json> remove(const kube::Resource& r, std::string_view ns, std::string_view name,
                                             const kube::DeleteOptions& o = {}) = 0;
};

class EtcdCalls {
 public:
  virtual ~EtcdCalls() = default;
  // Linearizable: it reflects every committed change.
  virtual base::Result<etcd::MemberList> member_list() = 0;
  virtual base::Result<etcd::MemberAddResult> member_add_learner(const std::string& peer_url) = 0;
  virtual base::Result<std::vector<etcd::Member>> member_promote(std::uint64_t id) = 0;
  virtual base::Result<std::vector<etcd::Member>> member_remove(std::uint64_t id) = 0;
  virtual base::Result<etcd::Header> move_leader(const std::string& leader_endpoint, std::uint64_t to) = 0;
  virtual base::Result<etcd::StatusInfo> status(const std::string& endpoint) = 0;
  // Concurrently, under one deadline (a member that is down costs one timeout).
  virtual std::vector<etcd::MemberResult<etcd::StatusInfo>> status_all(const std::vector<std::string>& endpoints) = 0;
  // The Status of a member whose Pod is newer than the session, dialled with
  // a client of its own (member_config): the session's knows the old IPs only.
  virtual base::Result<etcd::StatusInfo> status_of(const MemberTarget& member) = 0;
};

// The real clients.
class ClientKubeCalls final : public KubeCalls {
 public:
  explicit ClientKubeCalls(kube::Client& kube) : kube_(kube) {}
  base::Result<nlohmann::json> get(const kube::Resource& r, std::string_view ns, std::string_view name) override;
  base::Result<nlohmann::json> list_all(const kube::Resource& r, std::string_view ns,
                                       const kube::ListOptions& o) override;
  base::Result<nlohmann::json> create(const kube::Resource& r, std::string_view ns,
                                     const nlohmann::json& object) override;
  base::Result<nlohmann::json> patch(const kube::Resource& r, std::string_view ns, std::string_view name,
                                    kube::PatchType type, const nlohmann::json& patch,
                                    const kube::PatchOptions& o) override;
  base::Result<nlohmann::json> remove(const kube::Resource& r, std::string_view ns, std::string_view name,
                                     const kube::DeleteOptions& o) override;

 private:
  kube::Client& kube_;
};

class SessionEtcdCalls final : public EtcdCalls {
 public:
  explicit SessionEtcdCalls(Session& session) : s_(session) {}
  base::Result<etcd::MemberList> member_list() override;
  base::Result<etcd::MemberAddResult> member_add_learner(const std::string& peer_url) override;
  base::Result<std::vector<etcd::Member>> member_promote(std::uint64_t id) override;
  base::Result<std::vector<etcd::Member>> member_remove(std::uint64_t id) override;
  base::Result<etcd::Header> move_leader(const std::string& leader_endpoint, std::uint64_t to) override;
  base::Result<etcd::StatusInfo> status(const std::string& endpoint) override;
  std::vector<etcd::MemberResult<etcd::StatusInfo>> status_all(const std::vector<std::string>& endpoints) override;
  base::Result<etcd::StatusInfo> status_of(const MemberTarget& member) override;

 private:
  Session& s_;
};

}  // namespace admin
