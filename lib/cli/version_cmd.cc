#include "cli/version_cmd.h"

#include "cli/version.h"

namespace cli {

nlohmann::ordered_json version_document(const std::string& program) {
  return {{"program", program}, {"version", kVersion}};
}

std::string version_line(const std::string& program) { return program + " version " + kVersion; }

output::View version_view() {
  output::View v;
  v.text = [](const nlohmann::ordered_json& doc) {
    return version_line(doc.at("program").get<std::string>()) + "\n";
  };
  return v;
}

}  // namespace cli
