#include "admin/member_calls.h"

#include "admin/session.h"

namespace admin {

using json = nlohmann::json;

base::Result<json> ClientKubeCalls::get(const kube::Resource& r, std::string_view ns, std::string_view name) {
  return kube_.get(r, ns, name);
}
base::Result<json> ClientKubeCalls::list_all(const kube::Resource& r, std::string_view ns, const kube::ListOptions& o) {
  return kube_.list_all(r, ns, o);
}
base::Result<json> ClientKubeCalls::create(const kube::Resource& r, std::string_view ns, const json& object) {
  return kube_.create(r, ns, object);
}
base::Result<json> ClientKubeCalls::patch(const kube::Resource& r, std::string_view ns, std::string_view name,
                                          kube::PatchType type, const json& patch, const kube::PatchOptions& o) {
  return kube_.patch(r, ns, name, type, patch, o);
}
base::Result<json> ClientKubeCalls::remove(const kube::Resource& r, std::string_view ns, std::string_view name,
                                           const kube::DeleteOptions& o) {
  return kube_.remove(r, ns, name, o);
}

base::Result<etcd::MemberList> SessionEtcdCalls::member_list() { return s_.etcd->member_list(true); }
base::Result<etcd::MemberAddResult> SessionEtcdCalls::member_add_learner(const std::string& peer_url) {
  return s_.etcd->member_add({peer_url}, true);
}
base::Result<std::vector<etcd::Member>> SessionEtcdCalls::member_promote(std::uint64_t id) {
  return s_.etcd->member_promote(id);
}
base::Result<std::vector<etcd::Member>> SessionEtcdCalls::member_remove(std::uint64_t id) {
  return s_.etcd->member_remove(id);
}
base::Result<etcd::Header> SessionEtcdCalls::move_leader(const std::string& leader_endpoint, std::uint64_t to) {
  return s_.etcd->move_leader(leader_endpoint, to);
}
base::Result<etcd::StatusInfo> SessionEtcdCalls::status(const std::string& endpoint) { return s_.etcd->status(endpoint); }
std::vector<etcd::MemberResult<etcd::StatusInfo>> SessionEtcdCalls::status_all(const std::vector<std::string>& endpoints) {
  return s_.etcd->status_all(endpoints, s_.member_deadline());
}
base::Result<etcd::StatusInfo> SessionEtcdCalls::status_of(const MemberTarget& member) {
  auto c = etcd::Client::create(member_config(s_.target, member));
  if (!c) return std::move(c).error();
  return (*c)->status(member.endpoint);
}

}  // namespace admin
