// Keeps secrets out of logs and error text: query parameters that can carry
// credentials, and the values a server echoes back about a Secret.
#pragma once

#include <string>
#include <string_view>

namespace kube {

// The path with its query; values of parameters that can carry a credential
// (token, access_token, password, ...) replaced by "REDACTED".
std::string redact_query(std::string_view path_and_query);

// `Invalid value: "<anything>"` becomes `Invalid value: "REDACTED"`: a
// Secret's validation errors quote the value.
std::string redact_invalid_values(std::string_view text);

}  // namespace kube
