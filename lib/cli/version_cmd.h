// `version` of both programs: the project version from meson (one source).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "output/render.h"

namespace cli {

nlohmann::ordered_json version_document(const std::string& program);
// Table form: "<program> version <version>", the line --version prints too.
output::View version_view();
std::string version_line(const std::string& program);

}  // namespace cli
