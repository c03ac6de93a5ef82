#include "cli/completion.h"
#include "cli/shared_flags.h"

#include <algorithm>

#include <doctest/doctest.h>

namespace {

// A small tree shaped like kubectl-etcd's: nested commands, a flag with a
// fixed set, flags naming live objects, a positional, a hidden command.
struct CompletionTree {
  CLI::App app{"test", "kubectl-etcd"};
  std::string cluster, ns, context, output, target;
  bool all = false;
  CompletionTree() {
    auto* health = app.add_subcommand("health", "Check each member");
    health->add_option("-c,--cluster", cluster, "The EtcdCluster");
    health->add_option("-n,--namespace", ns, "Namespace");
    health->add_option("--context", context, "Context");
    health->add_option("-o,--output", output, "Format")->check(CLI::IsMember({"table", "json"}));
    health->add_flag("--all", all, "Everything");
    auto* snap = app.add_subcommand("snapshot", "Snapshots");
    snap->add_subcommand("save", "Save one");
    snap->add_subcommand("list", "List them");
    auto* move = app.add_subcommand("move-leader", "Move the leader");
    move->add_option("-c,--cluster", cluster, "The EtcdCluster");
    move->add_option("target", target, "The member");
    app.add_subcommand("__complete", "hidden")->group("");
  }
  cli::Completion run(std::vector<std::string> words) { return cli::complete(app, "kubectl-etcd", words); }
};

std::vector<std::string> values(const cli::Completion& c) {
  std::vector<std::string> out;
  for (const auto& x : c.candidates) out.push_back(x.value);
  std::sort(out.begin(), out.end());
  return out;
}

using V = std::vector<std::string>;

}  // namespace

TEST_CASE("subcommands by prefix, hidden ones never") {
  CompletionTree t;
  CHECK(values(t.run({""})) == V{"health", "move-leader", "snapshot"});
  CHECK(values(t.run({"he"})) == V{"health"});
  CHECK(values(t.run({"__"})).empty());
  CHECK(values(t.run({"snapshot", ""})) == V{"list", "save"});
}

TEST_CASE("flags of the command reached, long and short") {
  CompletionTree t;
  CHECK(values(t.run({"health", "--c"})) == V{"--cluster", "--context"});
  CHECK(values(t.run({"health", "-"})) ==
        V{"--all", "--cluster", "--context", "--help", "--namespace", "--output", "-c", "-h", "-n", "-o"});
  CHECK(values(t.run({"snapshot", "--c"})).empty());  // the parent's flags are not the child's
}

TEST_CASE("a flag's fixed values come from its IsMember check") {
  CompletionTree t;
  CHECK(values(t.run({"health", "-o", ""})) == V{"json", "table"});
  CHECK(values(t.run({"health", "--output=j"})) == V{"--output=json"});
}

TEST_CASE("a flag naming live objects asks for a lookup, with the scope typed so far") {
  CompletionTree t;
  auto c = t.run({"health", "--context", "dev", "-n", "prod", "--cluster", "et"});
  CHECK(c.lookup == cli::ValueKind::Cluster);
  CHECK(c.prefix == "et");
  CHECK(c.scope.ns == "prod");
  CHECK(c.scope.context == "dev");
  auto eq = t.run({"health", "--cluster=b"});
  CHECK(eq.lookup == cli::ValueKind::Cluster);
  CHECK(eq.insert_prefix == "--cluster=");
  CHECK(eq.prefix == "b");
  CHECK(t.run({"health", "--context", ""}).lookup == cli::ValueKind::Context);
}

TEST_CASE("a positional naming a member, after the flags that scope it") {
  CompletionTree t;
  auto c = t.run({"move-leader", "-c", "alpha", "al"});
  CHECK(c.lookup == cli::ValueKind::Member);
  CHECK(c.scope.cluster == "alpha");
  // Only one positional: nothing after it.
  CHECK(t.run({"move-leader", "alpha-0", ""}).lookup == cli::ValueKind::None);
}

TEST_CASE("value kinds per program") {
  CHECK(cli::value_kind("kubectl-etcd", "health", "--pod") == cli::ValueKind::Pod);
  CHECK(cli::value_kind("kubectl-etcd", "snapshot status", "name") == cli::ValueKind::Snapshot);
  CHECK(cli::value_kind("etcd-migrate", "verify", "name") == cli::ValueKind::Cluster);
  CHECK(cli::value_kind("etcd-migrate", "adopt", "--backup-dir") == cli::ValueKind::Directory);
  CHECK(cli::value_kind("kubectl-etcd", "health", "--kubeconfig") == cli::ValueKind::File);
}

TEST_CASE("candidates are VALUE<TAB>DESCRIPTION lines; files are the shell's job") {
  CHECK(cli::format_candidates({{"a", "x\ty"}, {"b", ""}}, cli::ValueKind::None) == "a\tx y\nb\t\n");
  CHECK(cli::format_candidates({}, cli::ValueKind::File) == ":files\n");
  CHECK(cli::format_candidates({}, cli::ValueKind::Directory) == ":dirs\n");
}

TEST_CASE("scripts for the three shells call the program's __complete") {
  for (const char* shell : {"bash", "zsh", "fish"}) {
    auto s = cli::completion_script(shell, "kubectl-etcd");
    REQUIRE(s.has_value());
    CHECK(s->find("kubectl-etcd __complete") != std::string::npos);
    CHECK(s->find("@BIN@") == std::string::npos);
  }
  CHECK(cli::completion_script("bash", "kubectl-etcd")->find("complete -F _kubectl_etcd_complete kubectl-etcd") !=
        std::string::npos);
  CHECK_FALSE(cli::completion_script("tcsh", "kubectl-etcd").has_value());
  auto plugin = cli::completion_script("kubectl", "kubectl-etcd");
  REQUIRE(plugin.has_value());
  CHECK(plugin->find("kubectl etcd ...") != std::string::npos);
  CHECK(plugin->find("echo \":4\"") != std::string::npos);
  CHECK_FALSE(cli::completion_script("kubectl", "etcd-migrate").has_value());  // not a kubectl plugin
}

TEST_CASE("shared flags before the command: their values, then the commands, then the flags") {
  CLI::App app{"test", "kubectl-etcd"};
  std::string ns, output;
  auto* member = app.add_subcommand("member", "Members");
  auto* list = member->add_subcommand("list", "List");
  list->add_option("-n,--namespace", ns, "Namespace")->group(cli::kSharedGroup);
  list->add_option("-o,--output", output, "Format")->check(CLI::IsMember({"table", "json"}))->group(cli::kSharedGroup);
  auto run = [&app](V words) { return cli::complete(app, "kubectl-etcd", words); };

  auto c = run({"-n", "pr"});
  CHECK(c.lookup == cli::ValueKind::Namespace);
  CHECK(c.prefix == "pr");
  CHECK(values(run({"-n", "prod", ""})) == V{"member"});
  CHECK(run({"-n", "prod", "member", "list", "-o", ""}).scope.ns == "prod");
  CHECK(values(run({"-n", "prod", "member", ""})) == V{"list"});
  CHECK(values(run({"member", "-o", ""})) == V{"json", "table"});
  CHECK(values(run({"--o"})) == V{"--output"});
  CHECK(values(run({"member", "-"})) == V{"--help", "--namespace", "--output", "-h", "-n", "-o"});
}
