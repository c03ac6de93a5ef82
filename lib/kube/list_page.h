// The pure part of reading apiserver answers: a body parsed as JSON, and the
// pages of a paginated List put together, apart from the HTTP calls so that
// both can be tested (and fuzzed) with recorded bodies.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "kube/status_error.h"

namespace kube {

// A success answer's body: an empty body is an empty object; anything that
// is not JSON is an error naming the request.
base::Result<nlohmann::json> parse_answer(std::string_view body, const RequestContext& ctx);

// Adds one List page to `all` (null before the first page): the first page
// becomes `all` with its items, later pages append their items. Returns the
// page's continue token ("" on the last page), or an error when the page is
// not a List object (a server or proxy answering something else).
base::Result<std::string> add_list_page(nlohmann::json& all, nlohmann::json page, const RequestContext& ctx);

// After the last page: the continue token no longer applies to the whole.
void end_list(nlohmann::json& all);

}  // namespace kube
