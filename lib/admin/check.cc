#include "admin/check.h"

#include <chrono>
#include <thread>

namespace admin {

base::Result<std::vector<Finding>> gather_findings(const Target& t, etcd::Client& c) {
  // A linearizable read fails while the voters elect a leader ("leader
  // changed"); an election takes about a second, so retry within one budget.
  auto until = std::chrono::steady_clock::now() + t.config.call_timeout;
  auto list = c.member_list(true);
  while (!list && list.error().kind == base::ErrorKind::CannotConnect && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    list = c.member_list(true);
  }
  if (!list) return std::move(list).error();
  ConsistencyInput in;
  in.cluster = t.cluster_object;
  in.members = t.member_objects;
  in.pods = t.pod_objects;
  in.etcd = std::move(list.value());
  in.operator_state = t.operator_state;
  return check_consistency(in);
}

nlohmann::ordered_json check_document(const std::vector<Finding>& findings) {
  nlohmann::ordered_json doc;
  doc["findings"] = nlohmann::ordered_json::array();
  for (const auto& f : findings) doc["findings"].push_back(finding_json(f));
  return doc;
}

output::View check_view() {
  output::View v;
  v.rows = "findings";
  v.columns = {{"CODE", "code"}, {"SEVERITY", "severity"}, {"MEMBER", "member"}, {"ID", "id"}, {"MESSAGE", "message"}};
  v.empty_message = "no findings";
  return v;
}

std::string render_report(const nlohmann::ordered_json& doc, const output::View& view, output::Format format) {
  std::string out = output::render(doc, view, format);
  if (format != output::Format::Table && format != output::Format::Wide) return out;
  if (view.rows != "findings" && doc.contains("findings") && !doc["findings"].empty()) {
    out += "\nFINDINGS\n" + output::render(doc, check_view(), format);
  }
  return out;
}

}  // namespace admin
