// Whether a member's TLS Secret can serve members the operator creates
// later: their names are <c>-<random>.<c>.<ns>.svc, which certificates that
// list only today's members do not cover (docs/operator-contract.md,
// "Certificates"). Pure.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace admin {

// "" when the Secret's tls.crt covers such a name, or holds no certificate
// to judge; otherwise "Secret <name> (tls.crt names: a, b)" for a message.
std::string uncovered_certificate(const nlohmann::json& secret, const std::string& cluster, const std::string& ns);

}  // namespace admin
