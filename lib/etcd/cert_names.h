// The DNS names a PEM certificate is valid for, and whether they cover a
// host name, so that a tool can tell before it grows a cluster that TLS to
// the new member would fail (docs/operator-contract.md, "Certificates").
#pragma once

#include <string>
#include <vector>

#include "cli/result.h"

namespace etcd {

// The DNS subjectAltNames of the first certificate in `pem` (the leaf of a
// bundle). `what` names the PEM's origin in errors (never the PEM).
cli::Result<std::vector<std::string>> certificate_dns_names(const std::string& pem, const std::string& what);

// Whether one of `names` matches `host` as TLS clients match: equal ignoring
// case, or a wildcard "*.rest" standing for exactly one leftmost label.
bool names_cover(const std::vector<std::string>& names, const std::string& host);

}  // namespace etcd
