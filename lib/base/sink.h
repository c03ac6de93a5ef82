// Where a snapshot stream goes (docs/rules.md#where-code-lives). A sink receives bytes in
// order, then exactly one of commit() or abort(); a sink that is destroyed
// without commit() aborts, so a failed stream never leaves a partial artefact.
#pragma once

#include <string_view>

#include "base/result.h"
#include "base/sha256.h"

namespace base {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual base::Status write(std::string_view data) = 0;
  // Makes everything written durable and visible under the final name.
  virtual base::Status commit() = 0;
  // Told just before commit() by a writer that hashed every byte it wrote
  // anyway (a snapshot stream does, for its trailer check): their SHA-256,
  // so that a sink storing it need not hash the same bytes a second time.
  virtual void written_sha256(const Digest&) {}
  // Drops everything written; never fails (best effort cleanup).
  virtual void abort() noexcept = 0;
};

}  // namespace base
