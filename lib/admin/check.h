// `check`: the consistency findings of one cluster (docs/break-glass-design.md#invariants), and the
// findings section other reports (health) append to their table.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/cert_check.h"
#include "admin/consistency.h"
#include "admin/target.h"
#include "base/result.h"
#include "etcd/client.h"
#include "output/format.h"
#include "output/render.h"

namespace kube {
class Client;
}

namespace admin {

// Member name -> why its Status failed.
using DialErrors = std::map<std::string, std::string>;

// A linearizable MemberList (a voter's view) and the Status of every member
// of the target, asked concurrently under one deadline (unless `dialled`
// holds the answers of a probe made already: health's), then
// check_consistency.
base::Result<std::vector<Finding>> gather_findings(const Target& t, etcd::Client& c,
                                                   const DialErrors* dialled = nullptr);

// `kubectl-etcd check`: gather_findings and, when a voter cannot be dialled
// and `kube` is given, the certificates judged as `kubectl-etcd certs`
// judges them, to name the problem that explains it.
base::Result<std::vector<Finding>> check_cluster(const Target& t, etcd::Client& c, kube::Client* kube);

// Appends to each UNREACHABLE_MEMBER finding the server certificate's
// problem that explains it (docs/certificates.md): one that does not name
// the host the member is dialled by, or, for a TLS error, one that is
// expired, missing or does not chain to the CA. Pure.
void explain_unreachable(std::vector<Finding>& findings, const std::vector<CertFinding>& certs);

nlohmann::ordered_json check_document(const std::vector<Finding>& findings);
output::View check_view();

// Table and wide: the document's table, then its "findings" (if any) as a
// second table; json and yaml: the document.
std::string render_report(const nlohmann::ordered_json& doc, const output::View& view, output::Format format);

}  // namespace admin
