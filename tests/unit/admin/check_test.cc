#include "admin/check.h"

#include <doctest/doctest.h>

namespace {

admin::Finding unreachable(const std::string& member, const std::string& error) {
  return {"UNREACHABLE_MEMBER", admin::Severity::Error, member, 4,
          "voter cannot be dialled: " + error + "; it counts for quorum, but clients cannot reach it"};
}

admin::CertFinding server(std::vector<std::string> uncovered, std::vector<admin::CertProblem> problems) {
  admin::CertFinding f;
  f.source = {"server", "etcd-server-tls", "etcd-server-tls"};
  f.read = true;
  f.uncovered_today = std::move(uncovered);
  f.problems = std::move(problems);
  return f;
}

}  // namespace

TEST_CASE("an unreachable voter is tied to the server certificate that does not name it") {
  const admin::CertProblem san{"san-today", "warning",
                               "Secret etcd-server-tls: the server certificate does not cover today's member "
                               "etcd-xm2dk.etcd.ns.svc (names: etcd-0.etcd-headless.ns.svc): TLS to it fails; add *.etcd.ns.svc"};
  std::vector<admin::Finding> fs = {unreachable("etcd-xm2dk", "Peer name etcd-xm2dk.etcd.ns.svc is not in peer certificate"),
                                    unreachable("etcd-0", "connection refused"),
                                    {"GHOST_MEMBER", admin::Severity::Error, "etcd-1", 2, "status.memberID ..."}};
  admin::CertFinding peer = server({"etcd-0.etcd.ns.svc"}, {san});
  peer.source.role = "peer";  // the tool dials the server certificate only
  admin::explain_unreachable(fs, {server({"etcd-xm2dk.etcd.ns.svc"}, {san}), peer});
  CHECK(fs[0].message == "voter cannot be dialled: Peer name etcd-xm2dk.etcd.ns.svc is not in peer certificate; it "
                         "counts for quorum, but clients cannot reach it; `kubectl etcd certs` finds why: " + san.message);
  // Another member, which the certificate names: its own error stands alone.
  CHECK(fs[1].message == "voter cannot be dialled: connection refused; it counts for quorum, but clients cannot reach it");
  CHECK(fs[2].message == "status.memberID ...");
}

TEST_CASE("an expired or unchained server certificate explains a TLS error only") {
  const admin::CertProblem expired{"expired", "blocker", "Secret etcd-server-tls: the server certificate expired"};
  std::vector<admin::Finding> fs = {unreachable("etcd-a", "TLS handshake failed: certificate has expired"),
                                    unreachable("etcd-b", "connection refused")};
  admin::explain_unreachable(fs, {server({}, {expired})});
  CHECK(fs[0].message.find("`kubectl etcd certs` finds why: " + expired.message) != std::string::npos);
  CHECK(fs[1].message.find("certs") == std::string::npos);
}
