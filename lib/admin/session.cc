#include "admin/session.h"

#include <algorithm>

namespace admin {

base::Result<Session> open_session(Target target) {
  auto c = etcd::Client::create(target.config);
  if (!c) return std::move(c).error();
  Session s;
  s.target = std::move(target);
  s.etcd = std::move(c.value());
  return s;
}

base::Result<std::unique_ptr<etcd::Client>> Session::client_preferring(const std::vector<std::string>& first) const {
  etcd::Config cfg = target.config;
  std::vector<std::string> eps;
  for (const auto& e : first) {
    if (std::find(cfg.endpoints.begin(), cfg.endpoints.end(), e) != cfg.endpoints.end()) eps.push_back(e);
  }
  for (const auto& e : cfg.endpoints) {
    if (std::find(eps.begin(), eps.end(), e) == eps.end()) eps.push_back(e);
  }
  cfg.endpoints = std::move(eps);
  return etcd::Client::create(std::move(cfg));
}

etcd::Deadline Session::member_deadline() const {
  return std::chrono::system_clock::now() + target.config.call_timeout;
}

}  // namespace admin
