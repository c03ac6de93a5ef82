// etcd::Client's creation and what it shares across services; the calls
// live in one unit per etcd service (etcd/client_impl.h).
#include "etcd/client.h"

#include <grpc/support/log.h>

#include <cstdlib>
#include <mutex>

#include "etcd/client_impl.h"

namespace etcd {

const char* alarm_name(AlarmType t) {
  switch (t) {
    case AlarmType::NoSpace: return "NOSPACE";
    case AlarmType::Corrupt: return "CORRUPT";
    case AlarmType::None: break;
  }
  return "NONE";
}

namespace {

void drop_grpc_log(gpr_log_func_args* /*unused*/) {}

// gRPC logs a refused handshake or a dropped connection on stderr itself,
// and the same failure then comes back to us as the call's Status, which the
// program renders once. Silenced unless the user asks gRPC for its logs.
void quiet_grpc_logs() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("GRPC_VERBOSITY") == nullptr && std::getenv("GRPC_TRACE") == nullptr) {
      gpr_set_log_function(drop_grpc_log);
    }
  });
}

}  // namespace

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

base::Result<std::unique_ptr<Client>> Client::create(Config config) {
  quiet_grpc_logs();
  auto impl = std::make_unique<Impl>();
  if (config.endpoints.empty()) {
    return base::make_error(base::ErrorKind::Usage, "no etcd endpoint given", {}, "give at least one client URL");
  }
  impl->default_tls = tls_requested(config.tls);
  bool any_secure = false;
  for (const auto& url : config.endpoints) {
    auto ep = parse_endpoint(url, impl->default_tls);
    if (!ep) return std::move(ep).error();
    any_secure = any_secure || ep->secure;
    if (!ep->secure && !config.user.empty()) {
      auto e = base::make_error(base::ErrorKind::Refused, "refusing to send credentials over plaintext",
                               endpoint_object(url), "use https endpoints with the cluster's CA");
      e.reason = reason::kPlaintextCredentials;
      return e;
    }
  }
  if (any_secure) {
    auto m = load_tls(config.tls);
    if (!m) return std::move(m).error();
    impl->tls = std::move(m.value());
  }
  impl->user = config.user;
  impl->password = config.password;
  impl->has_credentials = !config.user.empty();
  // The password lives in Impl only; the config copy callers can read back
  // does not keep it.
  config.password.clear();
  impl->cfg = std::move(config);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

const Config& Client::config() const { return impl_->cfg; }
Deadline Client::default_deadline() const { return Clock::now() + impl_->cfg.call_timeout; }

std::vector<MemberResult<StatusInfo>> Client::status_all(const std::vector<std::string>& endpoints,
                                                         std::optional<Deadline> deadline) {
  // Log in first so that members do not race for the token.
  (void)impl_->ensure_token();
  return fan_out<StatusInfo>(endpoints, deadline.value_or(default_deadline()),
                             [this](const std::string& ep, Deadline d) { return status(ep, d); });
}

}  // namespace etcd
