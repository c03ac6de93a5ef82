#include "cli/diag.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace cli {

bool Diag::stderr_wants_color() {
  if (const char* nc = std::getenv("NO_COLOR"); nc != nullptr && *nc != '\0') return false;
  if (const char* term = std::getenv("TERM"); term != nullptr && std::strcmp(term, "dumb") == 0) return false;
  return isatty(STDERR_FILENO) == 1;
}

Diag Diag::for_stderr(bool quiet) { return Diag(std::cerr, stderr_wants_color(), quiet); }

void Diag::line(const char* prefix, const char* color_code, std::string_view text) {
  std::lock_guard<std::mutex> lock(mu_);
  if (color_) {
    out_ << "\033[" << color_code << "m" << prefix << "\033[0m " << base::fold_line(text) << '\n';
  } else {
    out_ << prefix << ' ' << base::fold_line(text) << '\n';
  }
  out_.flush();
}

void Diag::error(std::string_view text) { line("error:", "1;31", text); }
void Diag::warning(std::string_view text) { line("warning:", "1;33", text); }
void Diag::note(std::string_view text) {
  if (!quiet_) line("note:", "1;36", text);
}
void Diag::verbose(std::string_view text) {
  if (verbosity_ <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  out_ << base::fold_line(text) << '\n';
  out_.flush();
}

}  // namespace cli
