// Aligned plain-text tables in kubectl's layout: upper-case headers, columns
// left-aligned and separated by three spaces, no trailing blanks.
#pragma once

#include <string>
#include <vector>

namespace output {

struct TextTable {
  std::vector<std::string> headers;
  std::vector<std::vector<std::string>> rows;

  std::string str() const;
};

}  // namespace output
