// What a support bundle may carry of an object (docs/support-bundle.md#redaction):
// Secrets by name and key names only, no managed fields or last-applied
// copies, env values that look like credentials replaced, and every string
// holding a value of one of the namespace's Secrets replaced. Pure.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace admin {

inline constexpr const char* kRedacted = "<redacted>";

// A Secret as name, namespace, type, labels, owners and the names of its
// data keys; never a value.
nlohmann::json secret_summary(const nlohmann::json& secret);

// Every value of the Secrets of `secret_list` (a List's items), decoded and
// as stored (base64), for redact(); empty values left out.
std::vector<std::string> secret_values(const nlohmann::json& items);

// `object` without what could carry a secret (see the file comment).
// Strings at least kSubstringMinimum long are replaced where they occur in
// a longer string; shorter ones only where a whole string equals them (a
// user name "root" must not blank every "rootCredentialsSecretRef").
inline constexpr std::size_t kSubstringMinimum = 8;
nlohmann::json redact(nlohmann::json object, const std::vector<std::string>& values);

}  // namespace admin
