// etcd::Client's calls of etcd's KV service: range, put, delete, compact.
#include "etcd/client.h"

#include "etcd/client_impl.h"

namespace etcd {

namespace {

pb::RangeRequest range_request(const std::string& key, const RangeOptions& o) {
  pb::RangeRequest req;
  req.set_key(key);
  req.set_range_end(o.range_end);
  req.set_limit(o.limit);
  req.set_revision(o.revision);
  req.set_serializable(o.serializable);
  req.set_keys_only(o.keys_only);
  req.set_count_only(o.count_only);
  return req;
}

RangeResult to_range_result(const pb::RangeResponse& r) {
  RangeResult out;
  out.header = to_header(r.header());
  out.more = r.more();
  out.count = r.count();
  for (const auto& kv : r.kvs()) {
    out.kvs.push_back({kv.key(), kv.value(), kv.create_revision(), kv.mod_revision(), kv.version(), kv.lease()});
  }
  return out;
}

}  // namespace

base::Result<RangeResult> Client::range(const std::string& key, const RangeOptions& o) {
  const pb::RangeRequest req = range_request(key, o);
  auto r = impl_->any_unary<pb::RangeResponse>("Range", Resend::kRead,
                                               [&](Conn& c, grpc::ClientContext* ctx, pb::RangeResponse* resp) {
                                                 return c.kv->Range(ctx, req, resp);
                                               });
  if (!r) return std::move(r).error();
  return to_range_result(*r);
}

base::Result<RangeResult> Client::range_at(const std::string& endpoint, const std::string& key,
                                          const RangeOptions& o, std::optional<Deadline> deadline) {
  const pb::RangeRequest req = range_request(key, o);
  auto r = impl_->on<pb::RangeResponse>(endpoint, "Range", deadline,
                                        [&](Conn& c, grpc::ClientContext* ctx, pb::RangeResponse* resp) {
                                          return c.kv->Range(ctx, req, resp);
                                        });
  if (!r) return std::move(r).error();
  return to_range_result(*r);
}

base::Result<Header> Client::put(const std::string& key, const std::string& value) {
  pb::PutRequest req;
  req.set_key(key);
  req.set_value(value);
  auto r = impl_->any_unary<pb::PutResponse>("Put", Resend::kUnproposed,
                                             [&](Conn& c, grpc::ClientContext* ctx, pb::PutResponse* resp) {
                                               return c.kv->Put(ctx, req, resp);
                                             });
  if (!r) return std::move(r).error();
  return to_header(r->header());
}

base::Result<std::int64_t> Client::delete_range(const std::string& key, const std::string& range_end) {
  pb::DeleteRangeRequest req;
  req.set_key(key);
  req.set_range_end(range_end);
  auto r = impl_->any_unary<pb::DeleteRangeResponse>(
      "DeleteRange", Resend::kUnproposed, [&](Conn& c, grpc::ClientContext* ctx, pb::DeleteRangeResponse* resp) {
        return c.kv->DeleteRange(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  return r->deleted();
}

base::Result<Header> Client::compact(std::int64_t revision, bool physical) {
  pb::CompactionRequest req;
  req.set_revision(revision);
  req.set_physical(physical);
  auto r = impl_->any_unary<pb::CompactionResponse>(
      "Compact", Resend::kRead, [&](Conn& c, grpc::ClientContext* ctx, pb::CompactionResponse* resp) {
        return c.kv->Compact(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  return to_header(r->header());
}

}  // namespace etcd
