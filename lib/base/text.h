// The few string helpers several folders need, written once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace base {

// Without leading and trailing spaces, tabs, CR and LF.
std::string trim(std::string_view s);
// ASCII lower case (host names, HTTP header names, YAML keywords).
std::string to_lower(std::string_view s);
// The pieces between `sep`; empty pieces are dropped unless keep_empty.
std::vector<std::string> split(std::string_view s, char sep, bool keep_empty = false);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// s between double quotes, as messages name objects: "etcd-0". No escaping:
// the names are Kubernetes names.
std::string quoted(std::string_view s);

}  // namespace base
