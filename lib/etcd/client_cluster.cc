// etcd::Client's calls of etcd's Cluster service: the member list, add,
// remove, update and promote.
#include "etcd/client.h"

#include <optional>
#include <thread>

#include "etcd/client_impl.h"
#include "etcd/server_version.h"

namespace etcd {

base::Result<MemberList> Client::member_list(bool linearizable) {
  if (auto t = impl_->ensure_token(); !t) return std::move(t).error();
  pb::MemberListRequest req;
  req.set_linearizable(linearizable);
  constexpr Resend kRead = Resend::kRead;
  auto r = impl_->any<pb::MemberListResponse>("MemberList", kRead, [&](Conn& c, const std::string& ep, Deadline d) {
    auto ask = [&] {
      return impl_->once<pb::MemberListResponse>(c, ep, "MemberList", d,
                                                 [&](Conn& cc, grpc::ClientContext* ctx, pb::MemberListResponse* resp) {
                                                   return cc.cluster->MemberList(ctx, req, resp);
                                                 });
    };
    if (!linearizable) return ask();
    // etcd 3.5+ reads the membership linearizably when asked (one ReadIndex
    // round); 3.4 ignores the field. The member's Status, a local answer,
    // says which, asked at the same time: 3.5+ costs no round trip more
    // (docs/member-list.md).
    std::optional<base::Result<pb::StatusResponse>> st;
    std::optional<base::Result<pb::MemberListResponse>> first;
    {
      // Joined when the scope ends, also if ask() throws.
      std::jthread status([&] {
        st.emplace(impl_->once<pb::StatusResponse>(c, ep, "Status", d,
                                                   [&](Conn& cc, grpc::ClientContext* ctx, pb::StatusResponse* resp) {
                                                     return cc.maintenance->Status(ctx, pb::StatusRequest(), resp);
                                                   }));
      });
      first.emplace(ask());
    }
    if (!*first || (*st && has_linearizable_member_list((*st)->version()))) return std::move(*first);
    // etcd 3.4, or a version not known: a linearizable Range on the same
    // member is the barrier (it returns only once that member has applied
    // everything committed before it), then MemberList again.
    pb::RangeRequest barrier;
    barrier.set_key(std::string(1, '\0'));
    barrier.set_count_only(true);
    auto b = impl_->once<pb::RangeResponse>(c, ep, "MemberList", d,
                                            [&](Conn& cc, grpc::ClientContext* ctx, pb::RangeResponse* resp) {
                                              return cc.kv->Range(ctx, barrier, resp);
                                            });
    if (!b) return base::Result<pb::MemberListResponse>(std::move(b).error());
    return ask();
  });
  if (!r) return std::move(r).error();
  return MemberList{to_header(r->header()), to_members(r->members())};
}

base::Result<MemberAddResult> Client::member_add(const std::vector<std::string>& peer_urls, bool as_learner) {
  pb::MemberAddRequest req;
  for (const auto& u : peer_urls) req.add_peerurls(u);
  req.set_islearner(as_learner);
  auto r = impl_->any_unary<pb::MemberAddResponse>(
      "MemberAdd", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberAddResponse* resp) {
        return c.cluster->MemberAdd(ctx, req, resp);
      });
  if (!r) {
    auto e = std::move(r).error();
    std::string urls;
    for (const auto& u : peer_urls) urls += (urls.empty() ? "" : ",") + u;
    e.object = "member with peer URLs " + urls;
    return e;
  }
  return MemberAddResult{to_header(r->header()), to_member(r->member()), to_members(r->members())};
}

base::Result<std::vector<Member>> Client::member_remove(std::uint64_t id) {
  pb::MemberRemoveRequest req;
  req.set_id(id);
  auto r = impl_->any_unary<pb::MemberRemoveResponse>(
      "MemberRemove", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberRemoveResponse* resp) {
        return c.cluster->MemberRemove(ctx, req, resp);
      });
  if (!r) return on_member(std::move(r).error(), id);
  return to_members(r->members());
}

base::Result<std::vector<Member>> Client::member_update(std::uint64_t id, const std::vector<std::string>& peer_urls) {
  pb::MemberUpdateRequest req;
  req.set_id(id);
  for (const auto& u : peer_urls) req.add_peerurls(u);
  auto r = impl_->any_unary<pb::MemberUpdateResponse>(
      "MemberUpdate", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberUpdateResponse* resp) {
        return c.cluster->MemberUpdate(ctx, req, resp);
      });
  if (!r) return on_member(std::move(r).error(), id);
  return to_members(r->members());
}

base::Result<std::vector<Member>> Client::member_promote(std::uint64_t id) {
  pb::MemberPromoteRequest req;
  req.set_id(id);
  auto r = impl_->any_unary<pb::MemberPromoteResponse>(
      "MemberPromote", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::MemberPromoteResponse* resp) {
        return c.cluster->MemberPromote(ctx, req, resp);
      });
  if (!r) return on_member(std::move(r).error(), id);
  return to_members(r->members());
}

}  // namespace etcd
