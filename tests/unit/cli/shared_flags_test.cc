#include "cli/shared_flags.h"

#include <sstream>

#include <doctest/doctest.h>

#include "cli/app.h"

namespace {

using V = std::vector<std::string>;

// Shaped like kubectl-etcd: shared flags on every leaf (-n takes a value, -q
// does not), a nested command, an intermediate command with flags and a
// positional of its own, a prefix command.
struct FlagTree {
  CLI::App app{"test", "kubectl-etcd"};
  std::string ns, cluster, endpoints, path, member;
  int quiet = 0;
  bool overwrite = false;

  void shared(CLI::App& sub) {
    sub.add_option("-n,--namespace", ns, "Namespace")->group(cli::kSharedGroup);
    sub.add_option("-c,--cluster", cluster, "Cluster")->group(cli::kSharedGroup);
    sub.add_option("--endpoints", endpoints, "URLs")->group(cli::kSharedGroup);
    sub.add_flag("-q,--quiet", quiet, "Quiet")->group(cli::kSharedGroup);
  }
  FlagTree() {
    shared(*app.add_subcommand("health", "Health"));
    auto* members = app.add_subcommand("member", "Members");
    shared(*members->add_subcommand("list", "List"));
    auto* remove = members->add_subcommand("remove", "Remove");
    shared(*remove);
    remove->add_option("member", member, "The member");
    auto* snap = app.add_subcommand("snapshot", "Snapshots");
    shared(*snap);
    snap->add_flag("--overwrite", overwrite, "Replace");
    snap->add_option("path", path, "Go form");
    shared(*snap->add_subcommand("save", "Save"));
    app.add_subcommand("__complete", "hidden")->prefix_command();
  }
  V hoist(V words) { return cli::hoist_shared_flags(app, words); }
};

}  // namespace

TEST_CASE("shared flags before a command move behind its name") {
  FlagTree t;
  CHECK(t.hoist({"-n", "prod", "health"}) == V{"health", "-n", "prod"});
  CHECK(t.hoist({"--namespace=prod", "health", "-c", "x"}) == V{"health", "--namespace=prod", "-c", "x"});
  CHECK(t.hoist({"-nprod", "-q", "health"}) == V{"health", "-nprod", "-q"});
}

TEST_CASE("a flag's value that is a command name stays the value") {
  FlagTree t;
  CHECK(t.hoist({"-n", "health", "health"}) == V{"health", "-n", "health"});
  CHECK(t.hoist({"-c", "member", "member", "list"}) == V{"member", "list", "-c", "member"});
}

TEST_CASE("shared flags reach the deepest command through nested ones") {
  FlagTree t;
  CHECK(t.hoist({"--endpoints", "http://a", "member", "list"}) == V{"member", "list", "--endpoints", "http://a"});
  CHECK(t.hoist({"member", "-n", "p", "list", "-q"}) == V{"member", "list", "-n", "p", "-q"});
  CHECK(t.hoist({"-n", "p", "member", "remove", "m1"}) == V{"member", "remove", "-n", "p", "m1"});
  CHECK(t.hoist({"snapshot", "-c", "x", "save", "f.db"}) == V{"snapshot", "save", "-c", "x", "f.db"});
}

TEST_CASE("an intermediate command's own flags stay with it") {
  FlagTree t;
  CHECK(t.hoist({"snapshot", "--overwrite", "-c", "x", "save"}) == V{"snapshot", "--overwrite", "save", "-c", "x"});
  // A positional ends the walk: `snapshot` is the command.
  CHECK(t.hoist({"-c", "x", "snapshot", "f.db"}) == V{"snapshot", "-c", "x", "f.db"});
}

TEST_CASE("nothing moves without a command, after --, or past an unknown word") {
  FlagTree t;
  CHECK(t.hoist({"-n", "prod"}) == V{"-n", "prod"});
  CHECK(t.hoist({"health", "-n", "prod"}) == V{"health", "-n", "prod"});
  CHECK(t.hoist({"-n", "p", "bogus", "health"}) == V{"-n", "p", "bogus", "health"});
  CHECK(t.hoist({"--bogus", "-n", "p", "health"}) == V{"--bogus", "-n", "p", "health"});
  CHECK(t.hoist({"--", "-n", "p", "health"}) == V{"--", "-n", "p", "health"});
  CHECK(t.hoist({"__complete", "-n", "p", "health"}) == V{"__complete", "-n", "p", "health"});
}

TEST_CASE("command_position skips shared flags and their values only") {
  CLI::App table;
  std::string ns;
  int quiet = 0;
  bool other = false;
  table.add_option("-n,--namespace", ns, "")->group(cli::kSharedGroup);
  table.add_flag("-q", quiet, "")->group(cli::kSharedGroup);
  table.add_flag("--other", other, "");
  CHECK(cli::command_position(table, {"health"}) == 0);
  CHECK(cli::command_position(table, {"-n", "health", "status"}) == 2);
  CHECK(cli::command_position(table, {"-q", "--namespace=x", "member", "list"}) == 2);
  CHECK(cli::command_position(table, {"-n", "x", "--other", "health"}) == 2);
  CHECK(cli::command_position(table, {"-n", "x"}) == 2);
  CHECK(cli::command_position(table, {}) == 0);
}

TEST_CASE("parse_args reads shared flags before the command as after it") {
  for (V words : {V{"-n", "prod", "member", "-q", "list"}, V{"member", "list", "-n", "prod", "-q"}}) {
    FlagTree t;
    std::vector<const char*> argv{"kubectl-etcd"};
    for (const auto& w : words) argv.push_back(w.c_str());
    std::ostringstream out, err;
    cli::Diag diag(err, false);
    CHECK_FALSE(cli::parse_args(t.app, static_cast<int>(argv.size()), argv.data(), out, diag).has_value());
    CHECK(t.ns == "prod");
    CHECK(t.quiet == 1);
  }
}

TEST_CASE("shared flags below a command, one per name") {
  FlagTree t;
  auto flags = cli::shared_flags_below(t.app);
  REQUIRE(flags.size() == 4);
  CHECK(flags[0]->get_name() == "--namespace");
  CHECK(cli::find_shared_flag(t.app, "--endpoints") != nullptr);
  CHECK(cli::find_shared_flag(t.app, "--overwrite") == nullptr);
}
