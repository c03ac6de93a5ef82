// Shared flags before or after the command (docs/rules.md#shared-flags):
// every command of both programs, found by walking their own command trees
// (a new command without an invocation below fails the test), runs with its
// shared flags after the command, before it, and between nested commands;
// each placement gives the same exit code and the same stdout. The
// invocations are read-only or --dry-run against a real native-fixture
// cluster, so every run reads the same live state.
#include <algorithm>
#include <fstream>
#include <functional>
#include <set>

#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

using Words = std::vector<std::string>;

// The command paths of a program, from its own completion of each level.
std::vector<Words> command_paths(const std::string& binary, const Words& prefix = {}) {
  Words argv{binary, "__complete"};
  argv.insert(argv.end(), prefix.begin(), prefix.end());
  argv.push_back("");
  auto r = e2e::run(argv);
  REQUIRE_MESSAGE(r.rc == 0, r.err);
  std::vector<Words> out;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    std::string name = line.substr(0, line.find('\t'));
    if (name.empty() || name[0] == ':' || name[0] == '-') continue;
    Words path = prefix;
    path.push_back(name);
    out.push_back(path);
    for (auto& p : command_paths(binary, path)) out.push_back(p);
  }
  return out;
}

std::string joined(const Words& w) {
  std::string s;
  for (const auto& x : w) s += (s.empty() ? "" : " ") + x;
  return s;
}

struct Invocation {
  Words args;    // the command's own arguments and flags
  Words shared;  // its shared flags
  // Fields of the JSON document that differ between two runs of the same
  // command on the same data (a member's response time; a snapshot's
  // sha256, as bbolt writes each copy's pages anew).
  Words volatile_fields = {};
  bool usage_rc_expected = false;  // the command itself refuses the values (not the parser)
};

json without(json doc, const Words& fields) {
  if (doc.is_object()) {
    for (const auto& f : fields) doc.erase(f);
    for (auto& [k, v] : doc.items()) v = without(v, fields);
  } else if (doc.is_array()) {
    for (auto& v : doc) v = without(v, fields);
  }
  return doc;
}

std::string comparable(const std::string& out, const Words& fields) {
  if (fields.empty()) return out;
  return without(json::parse(out), fields).dump(2);
}

// The same command with `shared` after it, before it, and after each of its
// nested command names: one exit code and one stdout.
void same_everywhere(const std::string& binary, const Words& path, const Invocation& inv) {
  CAPTURE(joined(path));
  std::vector<Words> lines;
  for (size_t at = 0; at <= path.size(); ++at) {
    Words argv{binary};
    argv.insert(argv.end(), path.begin(), path.begin() + static_cast<long>(at));
    argv.insert(argv.end(), inv.shared.begin(), inv.shared.end());
    argv.insert(argv.end(), path.begin() + static_cast<long>(at), path.end());
    argv.insert(argv.end(), inv.args.begin(), inv.args.end());
    lines.push_back(argv);
  }
  // Last: the shared flags after the command's own arguments too.
  Words last{binary};
  last.insert(last.end(), path.begin(), path.end());
  last.insert(last.end(), inv.args.begin(), inv.args.end());
  last.insert(last.end(), inv.shared.begin(), inv.shared.end());
  lines.push_back(last);

  auto first = e2e::run(last);
  INFO("reference: " << joined(last) << "\nrc " << first.rc << "\nstdout: " << first.out << "\nstderr: " << first.err);
  // A parser's usage error would make every placement agree for the wrong
  // reason.
  CHECK(first.err.find("not expected") == std::string::npos);
  if (!inv.usage_rc_expected) CHECK(first.rc != 128);
  CHECK((!first.out.empty() || !first.err.empty()));
  for (const auto& argv : lines) {
    auto r = e2e::run(argv);
    CAPTURE(joined(argv));
    CAPTURE(r.err);
    CHECK(r.rc == first.rc);
    CHECK(comparable(r.out, inv.volatile_fields) == comparable(first.out, inv.volatile_fields));
    // Without a document the error line is what there is to compare.
    if (first.out.empty()) CHECK(r.err == first.err);
  }
}

}  // namespace

TEST_CASE("kubectl-etcd: every command reads its shared flags before or after its name") {
  NativeCluster c(FixtureOptions{});
  const std::string binary = NativeCluster::binary();
  auto members = c.members();
  REQUIRE(members.size() == 3);

  // Who leads, for the two commands that would otherwise move leadership.
  auto st = c.tool({"status"}, {"-o", "json"});
  REQUIRE_MESSAGE(st.rc == 0, st.err);
  std::string leader, follower;
  const json status = parse(st);
  for (const auto& m : status["members"]) {
    if (m["role"] == "leader") leader = m["name"].get<std::string>();
    if (m["role"] == "follower" && follower.empty()) follower = m["name"].get<std::string>();
  }
  REQUIRE_FALSE(leader.empty());
  REQUIRE_FALSE(follower.empty());

  const Words target{"-c", c.name(), "-n", c.ns(), "--connect", "direct", "--operator", c.ns() + "/etcd-operator",
                     "--dial-timeout", "5s", "-o", "json"};
  const Words kube_only{"-n", c.ns(), "-o", "json"};
  const Words with_cluster{"-c", c.name(), "-n", c.ns(), "-o", "json"};
  // report writes a bundle, not a document: it has no -o.
  const Words report_flags(target.begin(), target.end() - 2);
  const std::string taken = e2e::var("TESTENV_DIR") + "/" + c.ns() + "-report-taken.tar.gz";
  { std::ofstream(taken) << "taken\n"; }
  const std::string file = e2e::var("TESTENV_DIR") + "/" + c.ns() + "-shared-flags.db";
  auto with = [&target](Words extra) {
    Words w = target;
    w.insert(w.end(), extra.begin(), extra.end());
    return w;
  };

  const std::map<std::string, Invocation> invocations{
      {"health", {{}, target, {"took"}}},
      {"check", {{}, target}},
      {"status", {{}, target}},
      {"member list", {{}, target}},
      {"members", {{}, target}},
      {"member add", {{"--dry-run"}, target}},
      {"member promote", {{members[0], "--dry-run"}, target}},
      {"member remove", {{members[0], "--dry-run"}, target}},
      {"member replace", {{members[0], "--dry-run"}, target}},
      {"member roll", {{members[0], "--dry-run"}, target}},
      {"member unwedge", {{"--dry-run"}, target}},
      {"remove-member", {{c.id_of(members[0]), "--dry-run"}, target}},
      {"leave", {{"--dry-run"}, with({"-p", members[0]})}},
      // Refused whatever its flags say.
      {"add-member", {{"http://127.0.0.1:2380"}, target}},
      {"defrag", {{"--dry-run"}, target}},
      // A revision in the future: refused the same way each time, once the
      // current revision was read from the cluster the flags name.
      {"compact", {{"--revision", "999999999"}, target, {}, true}},
      {"alarm list", {{}, target}},
      {"alarm disarm", {{}, target}},  // no alarm is raised: nothing changes
      {"move-leader", {{leader}, target}},  // to the leader itself: nothing moves
      {"forfeit-leadership", {{}, with({"-p", follower})}},  // not the leader: nothing moves
      {"snapshot save", {{file, "--overwrite", "--member", members[1]}, target, {"sha256"}}},
      {"snapshot", {{file, "--overwrite", "--member", members[1]}, target, {"sha256"}}},
      {"snapshot status", {{"--file", file}, kube_only}},
      {"snapshot list", {{"-c", c.name()}, kube_only}},
      // The dry-run's checks (docs/rules.md#dry-run-checks-what-the-run-checks): the
      // claim is looked for in the namespace of the flags, is missing (6), nothing is written.
      {"restore", {{"etcd-new", "--version", "3.6.11", "--pvc", "snapshots", "--pvc-path", "x.db", "--dry-run"},
                   kube_only}},
      {"hashkv", {{}, target}},
      {"certs", {{}, with_cluster}},
      // A bundle path that is taken: refused (3) before anything is gathered,
      // the same way wherever the shared flags stand.
      {"report", {{"-f", taken}, report_flags}},
      {"version", {{}, {"-o", "json"}}},
  };

  std::set<std::string> seen;
  for (const auto& path : command_paths(binary)) {
    bool has_children = false;
    for (const auto& other : command_paths(binary, path)) has_children = has_children || !other.empty();
    const std::string name = joined(path);
    if (has_children && name != "snapshot") continue;  // member, alarm: only through their subcommands
    CAPTURE(name);
    auto it = invocations.find(name);
    REQUIRE_MESSAGE(it != invocations.end(), "no invocation for `" << name << "`: add one to this test");
    seen.insert(name);
    same_everywhere(binary, path, it->second);
  }
  CHECK(seen.size() == invocations.size());

}

TEST_CASE("etcd-migrate: every command reads its shared flags before or after its name") {
  const std::string ns = e2e::unique_name("shf");
  e2e::kubectl({"create", "namespace", ns});
  const char* b = std::getenv("ETCD_MIGRATE");
  REQUIRE(b != nullptr);
  const std::string binary = b;
  const Words shared{"-n", ns, "-o", "json", "--connect", "direct", "--request-timeout", "20s"};
  const std::map<std::string, Invocation> invocations{
      {"adopt", {{}, shared}},  // without --apply: the plan only
      {"verify", {{}, shared}},
      {"version", {{}, {"-o", "json"}}},
  };
  std::set<std::string> seen;
  for (const auto& path : command_paths(binary)) {
    const std::string name = joined(path);
    auto it = invocations.find(name);
    REQUIRE_MESSAGE(it != invocations.end(), "no invocation for `" << name << "`: add one to this test");
    seen.insert(name);
    same_everywhere(binary, path, it->second);
  }
  CHECK(seen.size() == invocations.size());

  // A bare `etcd-migrate [flags]` is still `adopt [flags]`.
  auto bare = e2e::run({binary, "-n", ns, "-o", "json"});
  auto adopt = e2e::run({binary, "adopt", "-n", ns, "-o", "json"});
  CHECK(bare.rc == adopt.rc);
  CHECK(bare.out == adopt.out);
  e2e::kubectl({"delete", "namespace", ns, "--wait=false"});
}
