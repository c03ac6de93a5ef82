// Helpers shared by the e2e tests of lib/etcd: a client for an e2e::EtcdCluster,
// the versions every behaviour is proven on, and small polling/timing tools.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "etcd/client.h"
#include "etcd/member_id.h"
#include "must.h"
#include "testenv.h"

namespace etcd_e2e {

inline const std::vector<std::string>& versions() {
  static const std::vector<std::string> v{"3.4", "3.5", "3.6"};
  return v;
}

inline e2e::EtcdClusterOptions options(const std::string& version, int members = 3, bool tls = false,
                                       bool auth = false, std::vector<std::string> extra = {}) {
  e2e::EtcdClusterOptions o;
  o.version = version;
  o.members = members;
  o.tls = tls;
  o.auth = auth;
  o.extra = std::move(extra);
  return o;
}

inline etcd::Config config_for(const e2e::EtcdCluster& c, bool by_ip = false) {
  etcd::Config cfg;
  cfg.endpoints = by_ip ? c.ip_client_urls() : c.client_urls();
  if (c.info().value("tls", false)) {
    cfg.tls.ca_file = c.pki("ca.crt");
    cfg.tls.cert_file = c.pki("client.crt");
    cfg.tls.key_file = c.pki("client.key");
  }
  cfg.dial_timeout = std::chrono::seconds(3);
  cfg.call_timeout = std::chrono::seconds(5);
  return cfg;
}

inline std::unique_ptr<etcd::Client> make_client(etcd::Config cfg) {
  auto r = etcd::Client::create(std::move(cfg));
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().one_line()));
  return std::move(r).value();
}

inline std::unique_ptr<etcd::Client> client_for(const e2e::EtcdCluster& c, bool by_ip = false) {
  return make_client(config_for(c, by_ip));
}

using e2e::must;

// The member's ID as etcdctl reports it (JSON IDs are decimal uint64).
inline std::uint64_t etcdctl_member_id(e2e::EtcdCluster& c, const std::string& name) {
  auto j = nlohmann::json::parse(c.ctl({"member", "list", "-w", "json"}));
  for (const auto& m : j["members"]) {
    if (m.value("name", std::string()) == name) return m["ID"].get<std::uint64_t>();
  }
  FAIL("etcdctl does not list member " << name);
  return 0;
}

inline const etcd::Member* find_member(const std::vector<etcd::Member>& ms, const std::string& name) {
  for (const auto& m : ms) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

}  // namespace etcd_e2e
