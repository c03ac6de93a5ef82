// Auth as the adoption needs it (docs/rules.md#root-user-replaced): a root user created
// without a password (as the legacy operator does), deleted and re-added
// with a password, then Authenticate works and the token is used.
#include <unistd.h>

#include "etcd_e2e.h"

using namespace etcd_e2e;

namespace {

const char* kPassword = "s3cret-Pw-e2e";

void adopt_root(const std::string& version) {
  CAPTURE(version);
  // A 2 s token TTL makes the expiry path run too.
  e2e::EtcdCluster c(options(version, 3, true, true, {"--arg", "--auth-token-ttl=2"}));
  auto cl = client_for(c);  // client certificate CN root

  auto st = cl->auth_status();
  if (version == "3.4") {
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().reason == "Unimplemented");
  } else {
    CHECK(must(std::move(st), "auth status"));
  }
  auto roles = must(cl->user_get("root"), "user get root");
  CHECK(roles == std::vector<std::string>{"root"});
  // The root role needs no key permission (3.6 may list one); it must be readable.
  auto perms = must(cl->role_get("root"), "role get root");
  MESSAGE("role root has " << perms.size() << " permission(s)");

  // root has no password: no password authenticates it.
  auto nopw = cl->authenticate("root", "anything");
  REQUIRE_FALSE(nopw.ok());
  MESSAGE("authenticate a no-password root: " << nopw.error().one_line());
  CHECK((nopw.error().reason == "NoPasswordUser" || nopw.error().reason == "AuthFailed"));
  CHECK(nopw.error().kind == base::ErrorKind::PermissionDenied);

  // root cannot be deleted while auth is on.
  auto refused = cl->user_delete("root");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == "InvalidAuthManagement");

  // The adoption's auth step.
  must(cl->auth_disable(), "auth disable");
  must(cl->user_delete("root"), "user delete root");
  auto gone = cl->user_delete("root");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().reason == "UserNotFound");
  must(cl->user_add("root", std::string(kPassword)), "user add root");
  must(cl->user_grant_role("root", "root"), "grant root");
  must(cl->auth_enable(), "auth enable");

  // Authenticate works, with the new password only.
  must(cl->authenticate("root", kPassword), "authenticate");
  auto bad = cl->authenticate("root", "wrong-password");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().reason == "AuthFailed");
  CHECK(bad.error().one_line().find("wrong-password") == std::string::npos);

  // A client configured with the credentials sends the token on every call,
  // and logs in again after the token expires.
  auto cfg = config_for(c);
  cfg.user = "root";
  cfg.password = kPassword;
  auto pw = make_client(cfg);
  must(pw->put("/auth/k", "v"), "put with token");
  must(pw->member_list(), "member list with token");
  sleep(4);
  must(pw->put("/auth/k", "v2"), "put after the token expired");
  must(pw->status(c.client_urls().at(2)), "status with token");

  auto wrong_cfg = config_for(c);
  wrong_cfg.user = "root";
  wrong_cfg.password = "not-it";
  auto wrong = make_client(wrong_cfg);
  auto denied = wrong->member_list();
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().reason == "AuthFailed");
  CHECK(denied.error().kind == base::ErrorKind::PermissionDenied);
  CHECK(denied.error().one_line().find("not-it") == std::string::npos);

  // Change the password back and forth.
  must(pw->user_change_password("root", "another-Pw"), "change password");
  must(cl->authenticate("root", "another-Pw"), "authenticate with the new password");
}

}  // namespace

TEST_CASE("adopting root: no-password user replaced by one with a password, etcd 3.4") { adopt_root("3.4"); }
TEST_CASE("adopting root: no-password user replaced by one with a password, etcd 3.5") { adopt_root("3.5"); }
TEST_CASE("adopting root: no-password user replaced by one with a password, etcd 3.6") { adopt_root("3.6"); }

TEST_CASE("credentials are never sent over plaintext") {
  etcd::Config cfg;
  cfg.endpoints = {"http://127.0.0.1:2379"};
  cfg.user = "root";
  cfg.password = "pw";
  auto r = etcd::Client::create(cfg);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().kind == base::ErrorKind::Refused);
  CHECK(r.error().one_line().find("pw") == std::string::npos);
}
