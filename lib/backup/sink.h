// Where a snapshot stream goes (decisions.md E17). A sink receives bytes in
// order, then exactly one of commit() or abort(); a sink that is destroyed
// without commit() aborts, so a failed stream never leaves a partial artefact.
#pragma once

#include <string_view>

#include "cli/result.h"

namespace backup {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual cli::Status write(std::string_view data) = 0;
  // Makes everything written durable and visible under the final name.
  virtual cli::Status commit() = 0;
  // Drops everything written; never fails (best effort cleanup).
  virtual void abort() noexcept = 0;
};

}  // namespace backup
