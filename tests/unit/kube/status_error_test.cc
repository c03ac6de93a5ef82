#include "kube/status_error.h"

#include <doctest/doctest.h>

namespace {
const kube::Resource ec{"etcd-operator.cozystack.io", "v1alpha2", "etcdclusters", "EtcdCluster", true};
}

TEST_CASE("403 names the verb, resource and namespace refused") {
  kube::RequestContext ctx{"create", ec, "x", "", ""};
  auto e = kube::status_error(403, R"({"kind":"Status","status":"Failure","message":"etcdclusters.etcd-operator.cozystack.io is forbidden: User \"bob\" cannot create","reason":"Forbidden","code":403})", ctx);
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.reason == "Forbidden");
  CHECK(e.status == 403);
  CHECK(e.one_line().find("cannot create etcdclusters.etcd-operator.cozystack.io in namespace \"x\": ") == 0);
}

TEST_CASE("401 says unauthorized, cluster-scoped without a namespace") {
  kube::RequestContext ctx{"list", kube::resources::namespaces, "", "", ""};
  auto e = kube::status_error(401, R"({"kind":"Status","message":"Unauthorized","reason":"Unauthorized","code":401})", ctx);
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.message == "unauthorized: cannot list namespaces: Unauthorized");
}

TEST_CASE("a refused discovery request names the API group and version") {
  kube::RequestContext ctx{"get", kube::Resource{"etcd.aenix.io", "v1alpha1", "", "", false}, "", "", ""};
  auto e = kube::status_error(401, R"({"kind":"Status","message":"Unauthorized","reason":"Unauthorized","code":401})", ctx);
  CHECK(e.message == "unauthorized: cannot get API etcd.aenix.io/v1alpha1: Unauthorized");
  kube::RequestContext core{"get", kube::Resource{"", "v1", "", "", false}, "", "", ""};
  CHECK(kube::status_error(403, "", core).message == "cannot get API v1");
}

TEST_CASE("404 with a named object is NotFound; without one it is NotServed") {
  kube::RequestContext ctx{"get", ec, "ns", "c", ""};
  auto nf = kube::status_error(404, R"({"kind":"Status","reason":"NotFound","details":{"name":"c","group":"etcd-operator.cozystack.io","kind":"etcdclusters"},"code":404})", ctx);
  CHECK(nf.kind == base::ErrorKind::NotFound);
  CHECK(nf.one_line() == "etcdclusters.etcd-operator.cozystack.io \"ns/c\": not found");
  auto ns = kube::status_error(404, R"({"kind":"Status","reason":"NotFound","details":{"name":"ns","kind":"namespaces"},"code":404})", {"create", ec, "ns", "", ""});
  CHECK(ns.object == "namespaces \"ns\"");
  auto unserved = kube::status_error(404, "404 page not found\n", ctx);
  CHECK(unserved.reason == kube::kReasonNotServed);
  CHECK(unserved.kind == base::ErrorKind::Failed);
  auto unserved2 = kube::status_error(404, R"({"kind":"Status","reason":"NotFound","message":"the server could not find the requested resource","details":{},"code":404})", ctx);
  CHECK(unserved2.reason == kube::kReasonNotServed);
}

TEST_CASE("409 conflict and already-exists are told apart; 410 expired") {
  kube::RequestContext ctx{"update", ec, "ns", "c", ""};
  auto conflict = kube::status_error(409, R"({"kind":"Status","reason":"Conflict","message":"the object has been modified","code":409})", ctx);
  CHECK(conflict.reason == "Conflict");
  CHECK(conflict.one_line().find("etcdclusters.etcd-operator.cozystack.io \"ns/c\": cannot update: the object has been modified; ") == 0);
  auto exists = kube::status_error(409, R"({"kind":"Status","reason":"AlreadyExists","code":409})", {"create", ec, "ns", "c", ""});
  CHECK(exists.reason == "AlreadyExists");
  CHECK(exists.one_line() == "etcdclusters.etcd-operator.cozystack.io \"ns/c\": already exists");
  auto expired = kube::status_error(410, R"({"kind":"Status","reason":"Expired","message":"continue token expired","code":410})", {"list", ec, "ns", "", ""});
  CHECK(expired.reason == "Expired");
  CHECK(expired.hint.find("start the list again") != std::string::npos);

  CHECK(kube::is_conflict(conflict));
  CHECK_FALSE(kube::is_already_exists(conflict));
  CHECK(kube::is_already_exists(exists));
  CHECK_FALSE(kube::is_conflict(exists));
  CHECK_FALSE(kube::is_conflict(expired));
  CHECK_FALSE(kube::is_not_found(conflict));
  CHECK(kube::is_expired(expired));
  CHECK_FALSE(kube::is_expired(conflict));
}

TEST_CASE("is_not_served: the resource's API is not installed, told from an absent object") {
  kube::RequestContext ctx{"get", ec, "ns", "c", ""};
  CHECK(kube::is_not_served(kube::status_error(404, "404 page not found\n", ctx)));
  CHECK_FALSE(kube::is_not_served(kube::status_error(404, R"({"kind":"Status","reason":"NotFound","details":{"name":"c"},"code":404})", ctx)));
}

TEST_CASE("is_not_found is the NotFound kind only: an unserved resource is not an absent object") {
  kube::RequestContext ctx{"get", ec, "ns", "c", ""};
  CHECK(kube::is_not_found(kube::status_error(404, R"({"kind":"Status","reason":"NotFound","details":{"name":"c"},"code":404})", ctx)));
  CHECK_FALSE(kube::is_not_found(kube::status_error(404, "404 page not found\n", ctx)));
  base::Error e = base::make_error(base::ErrorKind::Failed, "x");
  e.reason = "NotFound";
  CHECK_FALSE(kube::is_not_found(e));
}

TEST_CASE("422 carries readable field causes, on one line") {
  kube::RequestContext ctx{"create", ec, "ns", "c", ""};
  auto e = kube::status_error(422, R"({"kind":"Status","reason":"Invalid","message":"EtcdCluster \"c\" is invalid: ...","code":422,
    "details":{"name":"c","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: \"object\": spec.replicas=0 with\nMemory is unsupported","field":"spec"},
                                      {"reason":"FieldValueRequired","message":"Required value","field":"spec.version"}]}})", ctx);
  CHECK(e.reason == "Invalid");
  REQUIRE(e.causes.size() == 2);
  CHECK(e.one_line() == "etcdclusters.etcd-operator.cozystack.io \"ns/c\": cannot create: invalid: spec: Invalid value: "
                        "\"object\": spec.replicas=0 with Memory is unsupported, spec.version: Required value");
}

TEST_CASE("a Secret's echoed values are redacted; a non-Status body is folded and cut") {
  kube::RequestContext ctx{"create", kube::resources::secrets, "ns", "s", ""};
  auto e = kube::status_error(422, R"({"kind":"Status","reason":"Invalid","details":{"causes":[{"message":"Invalid value: \"hunter2\": bad","field":"data[k]"}]}})", ctx);
  CHECK(e.one_line().find("hunter2") == std::string::npos);
  CHECK(e.causes.at(0) == "data[k]: Invalid value: \"REDACTED\": bad");
  auto html = kube::status_error(502, std::string(500, 'x') + "\n<html>", {"get", ec, "ns", "c", ""});
  CHECK(html.reason == "Unknown");
  CHECK(html.one_line().size() < 300);
  CHECK(html.kind == base::ErrorKind::Failed);
}
