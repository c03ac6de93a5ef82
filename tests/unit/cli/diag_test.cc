#include "cli/diag.h"

#include <doctest/doctest.h>

#include <sstream>

TEST_CASE("diagnostics carry fixed prefixes and no colour off a terminal") {
  std::ostringstream s;
  cli::Diag d(s, false);
  d.error("bad thing");
  d.warning("careful");
  d.note("fyi");
  CHECK(s.str() == "error: bad thing\nwarning: careful\nnote: fyi\n");
}

TEST_CASE("colour wraps only the prefix") {
  std::ostringstream s;
  cli::Diag d(s, true);
  d.error("x");
  CHECK(s.str() == "\033[1;31merror:\033[0m x\n");
}

TEST_CASE("quiet drops notes but never errors or warnings") {
  std::ostringstream s;
  cli::Diag d(s, false, true);
  d.note("hidden");
  d.warning("shown");
  d.error("shown too");
  CHECK(s.str() == "warning: shown\nerror: shown too\n");
}

TEST_CASE("an error value prints as its one line") {
  std::ostringstream s;
  cli::Diag d(s, false);
  d.error(base::make_error(base::ErrorKind::NotFound, "not found", "pod \"a/b\"", "check the name"));
  CHECK(s.str() == "error: pod \"a/b\": not found; check the name\n");
}

TEST_CASE("verbose lines appear only with -v") {
  std::ostringstream s;
  cli::Diag d(s, false);
  d.verbose("GET /api 200");
  CHECK(s.str().empty());
  d.set_verbosity(1);
  d.verbose("GET /api 200");
  CHECK(s.str() == "GET /api 200\n");
}

TEST_CASE("NO_COLOR turns colour off") {
  setenv("NO_COLOR", "1", 1);
  CHECK_FALSE(cli::Diag::stderr_wants_color());
  unsetenv("NO_COLOR");
}
