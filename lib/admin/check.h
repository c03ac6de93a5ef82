// `check`: the consistency findings of one cluster (docs/break-glass-design.md#invariants), and the
// findings section other reports (health) append to their table.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "admin/consistency.h"
#include "admin/target.h"
#include "base/result.h"
#include "etcd/client.h"
#include "output/format.h"
#include "output/render.h"

namespace admin {

// A linearizable MemberList (a voter's view), then check_consistency.
base::Result<std::vector<Finding>> gather_findings(const Target& t, etcd::Client& c);

nlohmann::ordered_json check_document(const std::vector<Finding>& findings);
output::View check_view();

// Table and wide: the document's table, then its "findings" (if any) as a
// second table; json and yaml: the document.
std::string render_report(const nlohmann::ordered_json& doc, const output::View& view, output::Format format);

}  // namespace admin
