// Standard base64 (RFC 4648), as kubeconfig *-data fields and ExecCredential use.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace kube {

// Whitespace is skipped; padding is optional; std::nullopt on other bytes.
std::optional<std::string> base64_decode(std::string_view in);
std::string base64_encode(std::string_view in);

}  // namespace kube
