// A resolved target with its etcd client: what every command runs against.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "admin/target.h"
#include "base/result.h"
#include "etcd/client.h"

namespace admin {

struct Session {
  Target target;
  std::unique_ptr<etcd::Client> etcd;

  // The member row name: the EtcdMember, or the endpoint with --endpoints.
  static std::string label(const MemberTarget& m) { return m.name.empty() ? m.endpoint : m.name; }
  // A client whose cluster calls try `first` before the other endpoints:
  // members that just answered go first, so a paused member costs nothing.
  base::Result<std::unique_ptr<etcd::Client>> client_preferring(const std::vector<std::string>& first) const;
  // The deadline of one round of per-member calls.
  etcd::Deadline member_deadline() const;
};

base::Result<Session> open_session(Target target);

}  // namespace admin
