// Durations as kubectl and etcdctl users write them.
#pragma once

#include <chrono>
#include <string>

#include "base/result.h"

namespace base {

// "30s", "2m", "1h30m", "500ms", "1.5s", or a bare number of seconds
// (kubectl's --request-timeout form). Usage error otherwise.
Result<std::chrono::milliseconds> parse_duration(const std::string& text);

}  // namespace base
