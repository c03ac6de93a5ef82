#include "output/format.h"

#include <string>

namespace output {

base::Result<Format> parse_format(std::string_view value, bool accept_text) {
  if (value == "table" || value.empty()) return Format::Table;
  if (value == "text" && accept_text) return Format::Table;
  if (value == "wide") return Format::Wide;
  if (value == "json") return Format::Json;
  if (value == "yaml") return Format::Yaml;
  std::string allowed = accept_text ? "table, text, wide, json or yaml" : "table, wide, json or yaml";
  return base::make_error(base::ErrorKind::Usage, "unknown output format \"" + std::string(value) + "\"",
                    "--output", "use one of " + allowed);
}

const char* format_name(Format f) {
  switch (f) {
    case Format::Table: return "table";
    case Format::Wide: return "wide";
    case Format::Json: return "json";
    case Format::Yaml: return "yaml";
  }
  return "table";
}

}  // namespace output
