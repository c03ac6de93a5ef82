// Diagnostics for humans on stderr: fixed prefixes "error:", "warning:",
// "note:", coloured only on a terminal and never with NO_COLOR set. Results
// never go here; they go to stdout through render().
#pragma once

#include <mutex>
#include <ostream>
#include <string_view>

#include "base/error.h"

namespace cli {

class Diag {
 public:
  Diag(std::ostream& out, bool color, bool quiet = false) : out_(out), color_(color), quiet_(quiet) {}

  // The stream is stderr; colour when it is a terminal, TERM is not "dumb"
  // and NO_COLOR is unset.
  static Diag for_stderr(bool quiet = false);
  static bool stderr_wants_color();

  void error(std::string_view text);
  void error(const base::Error& e) { error(e.one_line()); }
  void warning(std::string_view text);
  void note(std::string_view text);  // suppressed by -q
  void verbose(std::string_view text);  // only when verbosity > 0; unprefixed debug lines
  void set_verbosity(int v) { verbosity_ = v; }
  void set_quiet(bool q) { quiet_ = q; }
  int verbosity() const { return verbosity_; }
  bool quiet() const { return quiet_; }
  bool color() const { return color_; }
  std::ostream& stream() { return out_; }

 private:
  void line(const char* prefix, const char* color_code, std::string_view text);
  std::ostream& out_;
  bool color_;
  bool quiet_;
  int verbosity_ = 0;
  std::mutex mu_;  // lines from concurrent pipelines never interleave
};

}  // namespace cli
