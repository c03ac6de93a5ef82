#include "base/json_at.h"
#include "http/curl_error.h"
#include "kube/client.h"
#include "kube/list_page.h"

#include <thread>

namespace kube {

namespace {

using base::ErrorKind;
using nlohmann::json;

std::string meta(const json& obj, const char* key) {
  return base::string_at(obj, std::string("/metadata/") + key);
}

std::string ns_for(const Resource& r, std::string_view ns, const json& obj) {
  if (!r.namespaced) return {};
  if (!ns.empty()) return std::string(ns);
  return meta(obj, "namespace");
}

}  // namespace

Client::Client(std::shared_ptr<Transport> t, ClientOptions o)
    : transport_(std::move(t)), options_(std::move(o)),
      discovery_([this](const std::string& path) {
        HttpRequest req;
        req.path = path;
        Call call{RequestContext{"get", Resource{}, "", "", ""}, req, true};
        // Discovery answers 404 as data ("not served"), so it bypasses send()'s
        // error mapping but keeps its retries.
        base::Result<HttpResponse> last = base::make_error(ErrorKind::Failed, "no attempt");
        for (RetryBudget budget(options_.retry);;) {
          last = transport_->perform(call.http);
          AttemptOutcome out;
          if (!last) {
            out.never_sent = last.error().reason == http::kReasonConnectFailed;
            out.transport_failed = !out.never_sent;
          } else {
            out.http_status = last->status;
            out.retry_after = last->retry_after;
            if (last->status < 429 || last->status == 501) return last;
          }
          if (!should_retry(true, out)) break;
          auto d = next_delay(budget, out);
          if (!d) break;
          std::this_thread::sleep_for(*d);
        }
        return last;
      }),
      rng_(std::random_device{}()) {}

base::Result<std::unique_ptr<Client>> Client::create(const RestConfig& config, ClientOptions options) {
  auto t = Transport::create(config, options.transport);
  if (!t) return std::move(t).error();
  return std::unique_ptr<Client>(new Client(std::move(*t), std::move(options)));
}

base::Error Client::refine_not_found(base::Error e, const RequestContext& ctx) {
  if (e.reason != kReasonNotServed || ctx.resource.plural.empty()) return e;
  auto served = discovery_.served(ctx.resource);
  if (served.ok()) {
    // Served after all: the 404 is about the object (a proxy or an old
    // server that answered without details).
    e.kind = ErrorKind::NotFound;
    e.reason = "NotFound";
    e.hint.clear();
    e.message = "not found";
    e.object = ctx.name.empty() ? std::string() : ctx.resource.describe(ctx.ns, ctx.name);
  }
  return e;
}

base::Result<HttpResponse> Client::send(Call& call) {
  bool refreshed = false;
  for (RetryBudget budget(options_.retry);;) {
    auto r = transport_->perform(call.http);
    AttemptOutcome out;
    base::Error failure;
    if (!r) {
      failure = std::move(r).error();
      out.never_sent = failure.reason == http::kReasonConnectFailed;
      out.transport_failed = !out.never_sent && failure.reason != http::kReasonTLS;
      if (failure.reason == http::kReasonTLS) out.never_sent = false;
      if (failure.kind == ErrorKind::PermissionDenied) return failure;  // a credential plugin failed
      failure.message = "cannot " + describe_request(call.ctx) + ": " + failure.message;
    } else {
      if (r->status < 400) return r;
      if (r->status == 401 && !refreshed && transport_->credentials().refresh_after_unauthorized()) {
        refreshed = true;  // a rotated token or an expired plugin credential: one fresh try
        continue;
      }
      out.http_status = r->status;
      out.retry_after = r->retry_after;
      failure = refine_not_found(status_error(r->status, r->body, call.ctx), call.ctx);
    }
    if (failure.reason == http::kReasonTLS || !should_retry(call.idempotent, out)) return failure;
    auto d = next_delay(budget, out);
    if (!d) return failure;
    std::this_thread::sleep_for(*d);
  }
}

std::optional<std::chrono::milliseconds> Client::next_delay(RetryBudget& budget, const AttemptOutcome& out) {
  std::lock_guard lock(rng_mu_);
  return budget.next(out, rng_);
}

base::Result<json> Client::send_json(Call& call) {
  auto r = send(call);
  if (!r) return std::move(r).error();
  return parse_answer(r->body, call.ctx);
}

base::Result<json> Client::get(const Resource& r, std::string_view ns, std::string_view name, const GetOptions& o) {
  std::string n = r.namespaced ? std::string(ns) : std::string();
  Call call{{"get", r, n, std::string(name), o.subresource}, {}, true};
  call.http.path = r.path(n, name, o.subresource);
  return send_json(call);
}

base::Result<std::string> Client::pod_log(std::string_view ns, std::string_view pod, std::string_view container,
                                         std::size_t limit_bytes) {
  Call call{{"get", resources::pods, std::string(ns), std::string(pod), "log"}, {}, true};
  call.http.path = resources::pods.path(ns, pod, "log") +
                   build_query({{"container", std::string(container)}, {"limitBytes", std::to_string(limit_bytes)}});
  auto r = send(call);
  if (!r) return std::move(r).error();
  return std::move(r->body);
}

base::Result<json> Client::list(const Resource& r, std::string_view ns, const ListOptions& o) {
  std::string n = r.namespaced ? std::string(ns) : std::string();
  Call call{{"list", r, n, "", ""}, {}, true};
  call.http.path = r.path(n) + build_query(list_params(o));
  return send_json(call);
}

base::Result<json> Client::list_all(const Resource& r, std::string_view ns, const ListOptions& o) {
  ListOptions page = o;
  // In pages, as kubectl lists: an apiserver whose watch cache for a kind is
  // still filling (just started, or the CRD just came) answers a list
  // without a limit 429 "storage is (re)initializing" with Retry-After 1,
  // and serves a paged one from its store (docs/server-faults.md).
  if (page.limit == 0) page.limit = kListPageSize;
  json all;
  RequestContext ctx{"list", r, r.namespaced ? std::string(ns) : std::string(), "", ""};
  while (true) {
    auto l = list(r, ns, page);
    if (!l) return l;
    auto next = add_list_page(all, std::move(*l), ctx);
    if (!next) return std::move(next).error();
    if (next->empty()) break;
    page.continue_token = *next;
    page.resource_version.clear();  // the continue token pins the snapshot
  }
  end_list(all);
  return all;
}

base::Result<json> Client::create(const Resource& r, std::string_view ns, const json& object, const WriteOptions& o) {
  std::string n = ns_for(r, ns, object);
  // The name (when the object has one) makes errors name the object.
  Call call{{"create", r, n, meta(object, "name"), ""}, {}, false};
  call.http.method = "POST";
  call.http.path = r.path(n) + build_query(write_params(o));
  call.http.body = object.dump();
  return send_json(call);
}

base::Result<json> Client::replace(const Resource& r, std::string_view ns, const json& object, const ReplaceOptions& o) {
  std::string n = ns_for(r, ns, object);
  std::string name = meta(object, "name");
  if (name.empty()) return base::make_error(ErrorKind::Usage, "cannot update " + r.group_resource() + ": the object has no metadata.name");
  Call call{{"update", r, n, name, o.subresource}, {}, true};
  call.http.method = "PUT";
  call.http.path = r.path(n, name, o.subresource) + build_query(write_params({o.dry_run, o.field_manager}));
  call.http.body = object.dump();
  return send_json(call);
}

base::Result<json> Client::patch(const Resource& r, std::string_view ns, std::string_view name, PatchType type,
                                const json& patch, const PatchOptions& o) {
  std::string n = r.namespaced ? std::string(ns) : std::string();
  if (type == PatchType::Apply && o.field_manager.empty()) {
    return base::make_error(ErrorKind::Usage, "cannot apply " + r.group_resource() + ": a field manager is required");
  }
  bool idempotent = o.idempotent.value_or(type == PatchType::Merge || type == PatchType::Apply);
  Call call{{"patch", r, n, std::string(name), o.subresource}, {}, idempotent};
  call.http.method = "PATCH";
  call.http.path = r.path(n, name, o.subresource) + build_query(patch_params(type, o));
  call.http.content_type = patch_content_type(type);
  call.http.body = patch.dump();
  return send_json(call);
}

base::Result<json> Client::apply(const Resource& r, std::string_view ns, const json& object, const PatchOptions& o) {
  std::string name = meta(object, "name");
  if (name.empty()) return base::make_error(ErrorKind::Usage, "cannot apply " + r.group_resource() + ": the object has no metadata.name");
  return patch(r, ns_for(r, ns, object), name, PatchType::Apply, object, o);
}

base::Result<json> Client::remove(const Resource& r, std::string_view ns, std::string_view name, const DeleteOptions& o) {
  std::string n = r.namespaced ? std::string(ns) : std::string();
  Call call{{"delete", r, n, std::string(name), ""}, {}, true};
  call.http.method = "DELETE";
  call.http.path = r.path(n, name) + build_query(delete_params(o));
  call.http.body = delete_body(o).dump();
  return send_json(call);
}

base::Result<AccessReview> Client::can_i(std::string_view verb, const Resource& r, std::string_view ns,
                                        std::string_view name, std::string_view subresource) {
  json attrs = {{"verb", verb}, {"group", r.group}, {"resource", r.plural}};
  if (r.namespaced && !ns.empty()) attrs["namespace"] = ns;
  if (!name.empty()) attrs["name"] = name;
  if (!subresource.empty()) attrs["subresource"] = subresource;
  json review = {{"apiVersion", "authorization.k8s.io/v1"},
                 {"kind", "SelfSubjectAccessReview"},
                 {"spec", {{"resourceAttributes", attrs}}}};
  Call call{{"create", resources::selfsubjectaccessreviews, "", "", ""}, {}, true};  // a review changes nothing
  call.http.method = "POST";
  call.http.path = resources::selfsubjectaccessreviews.path("");
  call.http.body = review.dump();
  auto res = send_json(call);
  if (!res) return std::move(res).error();
  AccessReview a;
  const json& st = base::object_at(*res, "/status");
  a.allowed = base::bool_at(st, "/allowed");
  a.denied = base::bool_at(st, "/denied");
  a.reason = base::string_at(st, "/reason");
  return a;
}

base::Status Client::watch(const Resource& r, std::string_view ns, const WatchOptions& o,
                          const std::function<bool(const WatchEvent&)>& on_event) {
  std::string n = r.namespaced ? std::string(ns) : std::string();
  auto params = list_params(o.list);
  params.emplace_back("watch", "1");
  if (o.allow_bookmarks) params.emplace_back("allowWatchBookmarks", "true");
  long secs = std::max<long>(1, static_cast<long>(o.timeout.count()));
  params.emplace_back("timeoutSeconds", std::to_string(secs));
  Call call{{"watch", r, n, "", ""}, {}, true};
  call.http.path = r.path(n) + build_query(params);
  // The server closes the stream after timeoutSeconds; the client gives it a
  // little longer so that a clean end is not reported as a timeout.
  call.http.timeout = std::chrono::seconds(secs + 5);
  WatchDecoder decoder;
  std::optional<base::Error> stream_error;
  call.http.on_data = [&](std::string_view bytes) {
    return decoder.feed(bytes, [&](WatchEvent&& ev) {
      if (ev.type == "ERROR") {
        int code = ev.object.is_object() ? base::int_at(ev.object, "/code", 500) : 500;
        stream_error = status_error(code, ev.object.dump(), call.ctx);
        return false;
      }
      return on_event(ev);
    });
  };
  auto res = send(call);
  if (!res) return std::move(res).error();
  if (stream_error) return *stream_error;
  if (!decoder.error().empty()) {
    return base::make_error(ErrorKind::Failed, "cannot " + describe_request(call.ctx) + ": " + decoder.error());
  }
  return {};
}

base::Result<json> Client::wait_for(const Resource& r, std::string_view ns, std::string_view name,
                                   const ObjectPredicate& done, std::chrono::milliseconds timeout) {
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + timeout;
  const std::string n = r.namespaced ? std::string(ns) : std::string();
  ListOptions sel;
  sel.field_selector = "metadata.name=" + std::string(name);
  json current;  // null: absent
  while (true) {
    auto l = list(r, n, sel);
    if (!l) return l;
    current = json();
    if (const json* first = base::find_at(*l, "/items/0")) current = *first;
    if (done(current.is_null() ? nullptr : &current)) return current;
    std::string rv = meta(*l, "resourceVersion");
    bool satisfied = false;
    bool expired = false;
    while (!satisfied && !expired) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
      if (left.count() <= 0) {
        return base::make_error(ErrorKind::Timeout,
                               "timed out after " + std::to_string(timeout.count() / 1000) + "s waiting",
                               r.describe(n, name));
      }
      WatchOptions wo;
      wo.list = sel;
      wo.list.resource_version = rv;
      wo.timeout = std::chrono::duration_cast<std::chrono::seconds>(left + std::chrono::milliseconds(999));
      // Bound the stream by the deadline itself, not by the rounded seconds.
      auto st = watch(r, n, wo, [&](const WatchEvent& ev) {
        std::string erv = meta(ev.object, "resourceVersion");
        if (!erv.empty()) rv = erv;
        if (ev.type == "BOOKMARK") return clock::now() < deadline;
        if (meta(ev.object, "name") != name) return true;
        if (ev.type == "DELETED") {
          current = json();
        } else {
          current = ev.object;
        }
        satisfied = done(current.is_null() ? nullptr : &current);
        return !satisfied && clock::now() < deadline;
      });
      if (!st) {
        if (is_expired(st.error())) {
          expired = true;  // the resourceVersion is too old: list again
          continue;
        }
        return st.error();
      }
    }
    if (satisfied) return current;
  }
}

base::Status Client::wait_deleted(const Resource& r, std::string_view ns, std::string_view name,
                                 std::chrono::milliseconds timeout) {
  auto res = wait_for(r, ns, name, is_gone(), timeout);
  if (!res) return std::move(res).error();
  return {};
}

}  // namespace kube
