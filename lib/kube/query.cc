#include "kube/query.h"

namespace kube {

namespace {
bool unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}
std::string escape(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}
}  // namespace

std::string query_escape(std::string_view s) { return escape(s); }
std::string path_escape(std::string_view s) { return escape(s); }

std::string build_query(const std::vector<std::pair<std::string, std::string>>& params) {
  std::string q;
  for (const auto& [k, v] : params) {
    q += q.empty() ? "?" : "&";
    q += k + "=" + query_escape(v);
  }
  return q;
}

std::vector<std::pair<std::string, std::string>> list_params(const ListOptions& o) {
  std::vector<std::pair<std::string, std::string>> p;
  if (!o.label_selector.empty()) p.emplace_back("labelSelector", o.label_selector);
  if (!o.field_selector.empty()) p.emplace_back("fieldSelector", o.field_selector);
  if (o.limit > 0) p.emplace_back("limit", std::to_string(o.limit));
  if (!o.continue_token.empty()) p.emplace_back("continue", o.continue_token);
  if (!o.resource_version.empty()) p.emplace_back("resourceVersion", o.resource_version);
  return p;
}

std::vector<std::pair<std::string, std::string>> write_params(const WriteOptions& o) {
  std::vector<std::pair<std::string, std::string>> p;
  if (o.dry_run) p.emplace_back("dryRun", "All");
  if (!o.field_manager.empty()) p.emplace_back("fieldManager", o.field_manager);
  return p;
}

std::vector<std::pair<std::string, std::string>> patch_params(PatchType type, const PatchOptions& o) {
  auto p = write_params(WriteOptions{o.dry_run, o.field_manager});
  if (type == PatchType::Apply && o.force) p.emplace_back("force", "true");
  return p;
}

nlohmann::json delete_body(const DeleteOptions& o) {
  nlohmann::json b = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (o.propagation) b["propagationPolicy"] = propagation_name(*o.propagation);
  if (!o.precondition_uid.empty()) b["preconditions"]["uid"] = o.precondition_uid;
  if (!o.precondition_resource_version.empty()) {
    b["preconditions"]["resourceVersion"] = o.precondition_resource_version;
  }
  if (o.grace_period_seconds) b["gracePeriodSeconds"] = *o.grace_period_seconds;
  // The body's dryRun is honoured too, but the query form is what the
  // request log shows, so both say the same.
  if (o.dry_run) b["dryRun"] = nlohmann::json::array({"All"});
  return b;
}

std::vector<std::pair<std::string, std::string>> delete_params(const DeleteOptions& o) {
  std::vector<std::pair<std::string, std::string>> p;
  if (o.dry_run) p.emplace_back("dryRun", "All");
  return p;
}

const char* patch_content_type(PatchType type) {
  switch (type) {
    case PatchType::Merge: return "application/merge-patch+json";
    case PatchType::Json: return "application/json-patch+json";
    case PatchType::Strategic: return "application/strategic-merge-patch+json";
    case PatchType::Apply: return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

const char* propagation_name(Propagation p) {
  switch (p) {
    case Propagation::Orphan: return "Orphan";
    case Propagation::Background: return "Background";
    case Propagation::Foreground: return "Foreground";
  }
  return "Background";
}

}  // namespace kube
