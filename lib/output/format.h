// The -o/--output formats every result-printing command accepts.
#pragma once

#include <string_view>

#include "base/result.h"

namespace output {

enum class Format { Table, Wide, Json, Yaml };

// Parses a user's -o value. `text` is accepted as a synonym of table where the
// program allows it (etcd-migrate, docs/rules.md#output-formats).
base::Result<Format> parse_format(std::string_view value, bool accept_text = false);
const char* format_name(Format f);

}  // namespace output
