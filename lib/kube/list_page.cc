#include "kube/list_page.h"

namespace kube {

using base::ErrorKind;
using nlohmann::json;

base::Result<json> parse_answer(std::string_view body, const RequestContext& ctx) {
  if (body.empty()) return json::object();
  auto j = json::parse(body, nullptr, false);
  if (j.is_discarded()) {
    return base::make_error(ErrorKind::Failed, "cannot " + describe_request(ctx) + ": the server's answer is not JSON");
  }
  return j;
}

base::Result<std::string> add_list_page(json& all, json page, const RequestContext& ctx) {
  // A page that is not an object (an array, a string: a proxy's answer)
  // cannot be indexed by name; it is refused rather than thrown on.
  if (!page.is_object()) {
    return base::make_error(ErrorKind::Failed,
                            "cannot " + describe_request(ctx) + ": the server's answer is not a List object");
  }
  json items = json::array();
  auto it = page.find("items");
  if (it != page.end() && it->is_array()) items = std::move(*it);
  std::string next;
  auto m = page.find("metadata");
  if (m != page.end() && m->is_object()) {
    auto c = m->find("continue");
    if (c != m->end() && c->is_string()) next = c->get<std::string>();
  }
  if (!all.is_object()) {
    all = std::move(page);
    all["items"] = json::array();
  }
  for (auto& item : items) all["items"].push_back(std::move(item));
  return next;
}

void end_list(json& all) {
  if (all.contains("metadata") && all["metadata"].is_object()) all["metadata"].erase("continue");
}

}  // namespace kube
