#include "cli/command.h"

#include <doctest/doctest.h>

#include <array>
#include <sstream>

namespace {

int a_setups = 0, b_setups = 0;
std::string b_flag;
bool a_flag = false;

void setup_a(CLI::App& sub, cli::Action&, cli::Program&) {
  ++a_setups;
  sub.add_flag("--only-a", a_flag, "a flag of a");
}
void setup_b(CLI::App& sub, cli::Action& action, cli::Program&) {
  ++b_setups;
  sub.add_option("--value", b_flag, "b's value");
  sub.callback([&action] { action = [] { return 7; }; });
}
constexpr std::array kSpecs = {cli::CommandSpec{"a", "Command a", setup_a}, cli::CommandSpec{"b", "Command b", setup_b}};

// An app with kSpecs registered for the first argument `first`; the setup
// counters start from 0.
struct Registered {
  std::ostringstream out;
  cli::Diag diag{out, false, false};
  cli::Program program{"t", "t", &out, &diag};
  CLI::App app{"test", "t"};
  cli::Action action;

  explicit Registered(std::string_view first) {
    a_setups = b_setups = 0;
    cli::register_commands(app, kSpecs, action, program, first);
  }
};

}  // namespace

TEST_CASE("register_commands sets up only the command named first, the others keep name and description") {
  Registered r("b");
  CHECK(a_setups == 0);
  CHECK(b_setups == 1);
  CHECK(r.app.get_subcommand("a")->get_description() == "Command a");
  CHECK(r.app.help().find("Command a") != std::string::npos);
  r.app.parse(std::string("b --value x"), false);
  CHECK(b_flag == "x");
  REQUIRE(r.action);
  CHECK(r.action() == 7);
}

TEST_CASE("register_commands sets up every command when the first argument names none (help, an unknown word)") {
  for (std::string_view first : {"", "--help", "c"}) {
    Registered r(first);
    CHECK(a_setups == 1);
    CHECK(b_setups == 1);
  }
}
