// etcd::Client's calls of etcd's Auth service: auth status, enable and
// disable, login, users and roles.
#include "etcd/client.h"

#include "etcd/client_impl.h"

namespace etcd {

namespace {
base::Error on_user(base::Error e, const std::string& name) {
  e.object = "user \"" + name + "\"";
  return e;
}
}  // namespace

base::Result<bool> Client::auth_status() {
  pb::AuthStatusRequest req;
  auto r = impl_->any_unary<pb::AuthStatusResponse>(
      "AuthStatus", Resend::kRead, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthStatusResponse* resp) {
        return c.auth->AuthStatus(ctx, req, resp);
      });
  if (!r) {
    auto e = std::move(r).error();
    if (e.status == static_cast<int>(grpc::StatusCode::UNIMPLEMENTED)) e.reason = "Unimplemented";
    return e;
  }
  return r->enabled();
}

base::Status Client::auth_enable() {
  pb::AuthEnableRequest req;
  auto r = impl_->any_unary<pb::AuthEnableResponse>(
      "AuthEnable", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthEnableResponse* resp) {
        return c.auth->AuthEnable(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  return {};
}

base::Status Client::auth_disable() {
  pb::AuthDisableRequest req;
  auto r = impl_->any_unary<pb::AuthDisableResponse>(
      "AuthDisable", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthDisableResponse* resp) {
        return c.auth->AuthDisable(ctx, req, resp);
      });
  if (!r) return std::move(r).error();
  // Tokens die with auth; a later enable needs a fresh login.
  std::lock_guard lock(impl_->auth_mu);
  impl_->token.clear();
  return {};
}

base::Status Client::authenticate(const std::string& user, const std::string& password) {
  for (const auto& url : impl_->cfg.endpoints) {
    auto ep = parse_endpoint(url, impl_->default_tls);
    if (ep && !ep->secure) {
      auto e = base::make_error(base::ErrorKind::Refused, "refusing to send credentials over plaintext",
                               endpoint_object(url), "use https endpoints with the cluster's CA");
      e.reason = reason::kPlaintextCredentials;
      return e;
    }
  }
  auto t = impl_->authenticate_raw(user, password);
  if (!t) return on_user(std::move(t).error(), user);
  impl_->has_credentials = true;
  std::lock_guard lock(impl_->auth_mu);
  impl_->user = user;
  impl_->password = password;
  impl_->token = std::move(t.value());
  impl_->auth_off = false;
  return {};
}

base::Status Client::user_add(const std::string& name, const std::optional<std::string>& password) {
  pb::AuthUserAddRequest req;
  req.set_name(name);
  if (password) {
    req.set_password(*password);
  } else {
    req.mutable_options()->set_no_password(true);
  }
  auto r = impl_->any_unary<pb::AuthUserAddResponse>(
      "UserAdd", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserAddResponse* resp) {
        return c.auth->UserAdd(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return {};
}

base::Result<std::vector<std::string>> Client::user_get(const std::string& name) {
  pb::AuthUserGetRequest req;
  req.set_name(name);
  auto r = impl_->any_unary<pb::AuthUserGetResponse>(
      "UserGet", Resend::kRead, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserGetResponse* resp) {
        return c.auth->UserGet(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return std::vector<std::string>(r->roles().begin(), r->roles().end());
}

base::Status Client::user_delete(const std::string& name) {
  pb::AuthUserDeleteRequest req;
  req.set_name(name);
  auto r = impl_->any_unary<pb::AuthUserDeleteResponse>(
      "UserDelete", Resend::kRefusedRepeat, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserDeleteResponse* resp) {
        return c.auth->UserDelete(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return {};
}

base::Status Client::user_change_password(const std::string& name, const std::string& password) {
  pb::AuthUserChangePasswordRequest req;
  req.set_name(name);
  req.set_password(password);
  auto r = impl_->any_unary<pb::AuthUserChangePasswordResponse>(
      "UserChangePassword", Resend::kRefusedRepeat,
      [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserChangePasswordResponse* resp) {
        return c.auth->UserChangePassword(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), name);
  return {};
}

base::Status Client::user_grant_role(const std::string& user, const std::string& role) {
  pb::AuthUserGrantRoleRequest req;
  req.set_user(user);
  req.set_role(role);
  auto r = impl_->any_unary<pb::AuthUserGrantRoleResponse>(
      "UserGrantRole", Resend::kRefusedRepeat,
      [&](Conn& c, grpc::ClientContext* ctx, pb::AuthUserGrantRoleResponse* resp) {
        return c.auth->UserGrantRole(ctx, req, resp);
      });
  if (!r) return on_user(std::move(r).error(), user);
  return {};
}

base::Result<std::vector<Permission>> Client::role_get(const std::string& role) {
  pb::AuthRoleGetRequest req;
  req.set_role(role);
  auto r = impl_->any_unary<pb::AuthRoleGetResponse>(
      "RoleGet", Resend::kRead, [&](Conn& c, grpc::ClientContext* ctx, pb::AuthRoleGetResponse* resp) {
        return c.auth->RoleGet(ctx, req, resp);
      });
  if (!r) {
    auto e = std::move(r).error();
    e.object = "role \"" + role + "\"";
    return e;
  }
  std::vector<Permission> out;
  for (const auto& p : r->perm()) out.push_back({static_cast<Permission::Type>(p.permtype()), p.key(), p.range_end()});
  return out;
}

}  // namespace etcd
