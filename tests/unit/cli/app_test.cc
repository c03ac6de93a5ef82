#include "cli/app.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include <nlohmann/json.hpp>

namespace {

struct Run {
  std::optional<int> rc;
  std::string out;
  std::string err;
};

Run parse(std::vector<std::string> args) {
  CLI::App app{"test", "prog"};
  app.set_version_flag("--version", "prog version 1");
  app.require_subcommand(1);
  auto* status = app.add_subcommand("status", "show status");
  std::string output = "table";
  status->add_option("-o", output)->check(CLI::IsMember({"table", "json"}));
  app.add_subcommand("member", "members")->add_subcommand("list", "list members");
  std::vector<const char*> argv{"prog"};
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  cli::Diag diag(err, false);
  Run r;
  r.rc = cli::parse_args(app, static_cast<int>(argv.size()), argv.data(), out, diag);
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("display_name shows kubectl plugins as kubectl shows them") {
  CHECK(cli::display_name("/usr/bin/kubectl-etcd") == "kubectl etcd");
  CHECK(cli::display_name("kubectl-etcd_admin") == "kubectl etcd-admin");
  CHECK(cli::display_name("./build/etcd-migrate") == "etcd-migrate");
}

TEST_CASE("a good parse continues") {
  auto r = parse({"status", "-o", "json"});
  CHECK_FALSE(r.rc.has_value());
}

TEST_CASE("--help prints on stdout and exits 0") {
  auto r = parse({"--help"});
  REQUIRE(r.rc.has_value());
  CHECK(*r.rc == 0);
  CHECK(r.out.find("status") != std::string::npos);
  CHECK(r.err.empty());
}

TEST_CASE("--version prints on stdout and exits 0") {
  auto r = parse({"--version"});
  CHECK(*r.rc == 0);
  CHECK(r.out == "prog version 1\n");
}

TEST_CASE("an unknown flag is a usage error, 128, one line") {
  auto r = parse({"status", "--bogus"});
  CHECK(*r.rc == 128);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find("--help") != std::string::npos);
}

TEST_CASE("a bad flag value is a usage error") {
  auto r = parse({"status", "-o", "xml"});
  CHECK(*r.rc == 128);
}

TEST_CASE("a missing subcommand is a usage error") {
  auto r = parse({});
  CHECK(*r.rc == 128);
}

TEST_CASE("a mistyped subcommand gets a suggestion") {
  auto r = parse({"stauts"});
  CHECK(*r.rc == 128);
  CHECK(r.err.find("unknown command \"stauts\"") != std::string::npos);
  CHECK(r.err.find("(did you mean \"status\"?)") != std::string::npos);
}

TEST_CASE("a mistyped nested subcommand gets a suggestion from its parent") {
  auto r = parse({"member", "lsit"});
  CHECK(*r.rc == 128);
  CHECK(r.err.find("did you mean \"list\"?") != std::string::npos);
}

TEST_CASE("closest finds near names only") {
  CHECK(cli::closest("helth", {"health", "status"}) == std::optional<std::string>("health"));
  CHECK_FALSE(cli::closest("zzzzzz", {"health", "status"}).has_value());
  CHECK(cli::edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("run_guarded: an escaping exception is one line naming it, and exit 1") {
  std::ostringstream err;
  cli::Diag diag(err, false);
  CHECK(cli::run_guarded(diag, [] { return 5; }) == 5);
  CHECK(err.str().empty());
  int rc = cli::run_guarded(diag, []() -> int {
    return nlohmann::json::parse(R"({"members":5})").at("members").get<std::string>().size();
  });
  CHECK(rc == 1);
  const std::string text = err.str();
  CHECK(text.rfind("error: internal error: nlohmann::", 0) == 0);
  CHECK(text.find("type_error") != std::string::npos);
  CHECK(text.find("type must be string, but is number") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 1);
  std::ostringstream err2;
  cli::Diag diag2(err2, false);
  CHECK(cli::run_guarded(diag2, []() -> int { throw 42; }) == 1);
  CHECK(err2.str() == "error: internal error: int; please report this with the command line\n");
}
