#include <doctest/doctest.h>

#include "kube/port_forward.h"

TEST_CASE("a 403 names the verb and the resource, and the RBAC rule to ask for") {
  std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"etcd-0\" is forbidden: User \"u\" cannot create resource \"pods/portforward\" in API group \"\" in the namespace \"ns\"","reason":"Forbidden","code":403})";
  auto e = kube::port_forward_error(403, body, "ns", "etcd-0");
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.one_line().find("cannot create pods/portforward") != std::string::npos);
  CHECK(e.hint.find("\"create\" and \"get\" on \"pods/portforward\"") != std::string::npos);
}

TEST_CASE("a pod without a node is not running; a failed dial to the kubelet is explained") {
  std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pod etcd-0 does not have a host assigned","reason":"BadRequest","code":400})";
  auto e = kube::port_forward_error(400, body, "ns", "etcd-0");
  CHECK(e.kind == base::ErrorKind::CannotConnect);
  CHECK(e.reason == "PodNotRunning");
  CHECK(e.one_line().find("not running") != std::string::npos);

  auto k = kube::port_forward_error(500, "error dialing backend: dial tcp 127.0.0.1:1: connect: connection refused", "ns",
                                    "etcd-0");
  CHECK(k.kind == base::ErrorKind::CannotConnect);
  CHECK(k.reason == "KubeletUnreachable");
  CHECK(k.one_line().find("kubelet") != std::string::npos);
  CHECK(k.one_line().find("connection refused") != std::string::npos);
  CHECK(k.one_line().find('\n') == std::string::npos);
}

TEST_CASE("the apiserver's 404 names the pod; the kubelet's means it does not run it") {
  std::string body = R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":"pods \"etcd-9\" not found","reason":"NotFound","code":404})";
  auto e = kube::port_forward_error(404, body, "ns", "etcd-9");
  CHECK(e.kind == base::ErrorKind::NotFound);
  auto k = kube::port_forward_error(404, "pod not found\n", "ns", "etcd-0");
  CHECK(k.kind == base::ErrorKind::CannotConnect);
  CHECK(k.reason == "PodNotRunning");
}
