// The Kubernetes client of both programs: typed verbs over Transport with
// Status errors, retries with backoff for what is safe to resend, discovery,
// server-side dry-run, access reviews, watches and waits. Objects are JSON.
// Thread-safe: one Client serves every thread of a run.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "kube/config.h"
#include "kube/discovery.h"
#include "kube/query.h"
#include "kube/resource.h"
#include "kube/retry.h"
#include "kube/status_error.h"
#include "kube/transport.h"
#include "kube/watch.h"

namespace kube {

struct ClientOptions {
  TransportOptions transport;
  RetryPolicy retry;
};

struct GetOptions {
  std::string subresource;  // "status"
};

struct ReplaceOptions {
  bool dry_run = false;
  std::string field_manager;
  std::string subresource;  // "status" writes the status subresource
};

struct AccessReview {
  bool allowed = false;
  bool denied = false;
  std::string reason;
};

struct WatchOptions {
  ListOptions list;  // selectors; resource_version to start from
  std::chrono::seconds timeout{300};  // the server ends the watch after this
  bool allow_bookmarks = true;
};

// The page size of list_all when the caller gives none: kubectl's.
inline constexpr std::int64_t kListPageSize = 500;

class Client {
 public:
  static base::Result<std::unique_ptr<Client>> create(const RestConfig& config, ClientOptions options = {});

  base::Result<nlohmann::json> get(const Resource& r, std::string_view ns, std::string_view name,
                                  const GetOptions& o = {});
  // One page (the list object; metadata.continue names the next page).
  base::Result<nlohmann::json> list(const Resource& r, std::string_view ns, const ListOptions& o = {});
  // Every page (o.limit per page, kListPageSize when 0), items concatenated
  // into one list object.
  base::Result<nlohmann::json> list_all(const Resource& r, std::string_view ns, const ListOptions& o = {});
  base::Result<nlohmann::json> create(const Resource& r, std::string_view ns, const nlohmann::json& object,
                                     const WriteOptions& o = {});
  // PUT: the object's metadata.resourceVersion is the optimistic-concurrency guard.
  base::Result<nlohmann::json> replace(const Resource& r, std::string_view ns, const nlohmann::json& object,
                                      const ReplaceOptions& o = {});
  base::Result<nlohmann::json> patch(const Resource& r, std::string_view ns, std::string_view name,
                                    PatchType type, const nlohmann::json& patch, const PatchOptions& o = {});
  // Server-side apply of a whole (partial) object; needs o.field_manager.
  base::Result<nlohmann::json> apply(const Resource& r, std::string_view ns, const nlohmann::json& object,
                                    const PatchOptions& o);
  // Returns the server's answer (the object, or a Status when it is gone at once).
  base::Result<nlohmann::json> remove(const Resource& r, std::string_view ns, std::string_view name,
                                     const DeleteOptions& o = {});

  // A container's log (the pods/log subresource) as text, its last
  // `limit_bytes` at most: what a finished Pod printed is read from here.
  base::Result<std::string> pod_log(std::string_view ns, std::string_view pod, std::string_view container,
                                    std::size_t limit_bytes = 64 * 1024);

  // SelfSubjectAccessReview: may the current user `verb` on r (ns, name, subresource)?
  base::Result<AccessReview> can_i(std::string_view verb, const Resource& r, std::string_view ns,
                                  std::string_view name = {}, std::string_view subresource = {});

  // Streams events until `on_event` returns false, the server closes the
  // watch, or an ERROR event arrives (410 comes back as reason "Expired").
  base::Status watch(const Resource& r, std::string_view ns, const WatchOptions& o,
                    const std::function<bool(const WatchEvent&)>& on_event);

  // List-then-watch until `done` holds for the object (nullptr = absent) or
  // `timeout` passes (ErrorKind::Timeout). Returns the last object seen
  // (null when absent).
  base::Result<nlohmann::json> wait_for(const Resource& r, std::string_view ns, std::string_view name,
                                       const ObjectPredicate& done, std::chrono::milliseconds timeout);
  base::Status wait_deleted(const Resource& r, std::string_view ns, std::string_view name,
                           std::chrono::milliseconds timeout);

  Discovery& discovery() { return discovery_; }
  Transport& transport() { return *transport_; }
  // For what must outlive this client's users (port-forwards).
  std::shared_ptr<Transport> shared_transport() const { return transport_; }
  const RestConfig& config() const { return transport_->config(); }
  TransportStats stats() const { return transport_->stats(); }

 private:
  Client(std::shared_ptr<Transport> t, ClientOptions o);

  struct Call {
    RequestContext ctx;
    HttpRequest http;
    bool idempotent = false;
  };
  // Sends with retries and the 401 credential refresh; statuses >= 400 become errors.
  base::Result<HttpResponse> send(Call& call);
  // The budget's next wait, drawn from the client's shared generator.
  std::optional<std::chrono::milliseconds> next_delay(RetryBudget& budget, const AttemptOutcome& out);
  base::Result<nlohmann::json> send_json(Call& call);
  // A 404 without a named object: ask discovery whether the API is served.
  base::Error refine_not_found(base::Error e, const RequestContext& ctx);

  std::shared_ptr<Transport> transport_;
  ClientOptions options_;
  Discovery discovery_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace kube
