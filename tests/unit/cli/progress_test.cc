#include "cli/progress.h"

#include <doctest/doctest.h>

#include <sstream>

using namespace std::chrono_literals;

TEST_CASE("on a terminal updates overprint one line and finish clears it") {
  std::ostringstream s;
  {
    cli::Progress p(s, true, false);
    p.update("10%");
    p.update("20%");
    p.line("done");
  }
  CHECK(s.str() == "\r\033[K10%\r\033[K20%\r\033[Kdone\n");
}

TEST_CASE("off a terminal updates are plain lines, throttled") {
  std::ostringstream s;
  cli::Progress p(s, false, false, 1000ms);
  auto t0 = cli::Progress::Clock::time_point{} + 10s;
  p.update("a", t0);
  p.update("b", t0 + 200ms);  // within the interval: dropped
  p.update("c", t0 + 1500ms);
  p.line("step done");
  p.finish();
  CHECK(s.str() == "a\nc\nstep done\n");
}

TEST_CASE("quiet prints nothing") {
  std::ostringstream s;
  {
    cli::Progress p(s, true, true);
    p.update("x");
    p.line("y");
  }
  CHECK(s.str().empty());
}
