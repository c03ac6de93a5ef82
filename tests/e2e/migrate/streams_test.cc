// Results on stdout, progress on stderr (README "Output"): every command
// of etcd-migrate, and every read-only or --dry-run command of kubectl-etcd
// on the adopted cluster, run with stdout and stderr apart. stdout must be
// exactly the result: in -o json|yaml one document and nothing else; in
// table form no progress, note or diagnostic line, nothing that stderr
// carries, and the result's own first line first.
#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>

#include "adopt_checks.h"

using json = nlohmann::json;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

// What only progress and diagnostics start with.
bool progress_line(const std::string& line) {
  for (const char* p : {"note:", "warning:", "error:", "controller check", "found ", "inspected ", "inspecting ",
                        "step "}) {
    if (line.rfind(p, 0) == 0) return true;
  }
  return false;
}

void check_result_only(const e2e::CommandResult& r, const std::string& what, const std::string& format,
                       const std::string& first_line = {}) {
  INFO(what << " -o " << format << " (rc " << r.rc << ")\n--- stdout:\n" << r.out << "--- stderr:\n" << r.err);
  if (format != "table") CHECK_FALSE(r.out.empty());
  if (format == "json") {
    CHECK_MESSAGE(!json::parse(r.out, nullptr, false).is_discarded(), "stdout is not exactly one JSON document");
  } else if (format == "yaml") {
    auto y = e2e::run({"python3", "-c",
                       "import sys, yaml\n"
                       "docs = list(yaml.safe_load_all(sys.stdin))\n"
                       "sys.exit(0 if len(docs) == 1 and isinstance(docs[0], dict) else 1)\n"},
                      {}, r.out);
    CHECK_MESSAGE(y.rc == 0, "stdout is not exactly one YAML document: " << y.err);
  } else {
    for (const auto& line : lines_of(r.out)) CHECK_MESSAGE(!progress_line(line), "progress on stdout: " << line);
    if (!first_line.empty()) CHECK(lines_of(r.out).front().rfind(first_line, 0) == 0);
  }
  // Whatever went to stderr went there only.
  for (const auto& line : lines_of(r.err)) {
    if (line.size() > 12) CHECK_MESSAGE(r.out.find(line) == std::string::npos, "on both streams: " << line);
  }
}

bool has_line(const std::string& text, const std::string& start) {
  for (const auto& line : lines_of(text)) {
    if (line.find(start) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("every command: stdout is exactly the result, progress goes to stderr") {
  e2e::Namespace ns("e2e-streams");
  const std::string n = ns.name();
  e2e::LegacyFixture f(n, "etcd", {"--version", "3.6", "--tls"});
  const std::vector<std::string> coords = {"--connect", "direct", "--legacy-controller", f.legacy_controller(),
                                           "--new-controller", f.new_controller()};
  auto migrate = [&](std::vector<std::string> args) {
    args.insert(args.end(), coords.begin(), coords.end());
    return e2e::etcd_migrate(args);
  };

  // The plan: the controller check, the count and the inspection are progress.
  auto table = migrate({"adopt", "-n", n, "--skip-backup"});
  CHECK(table.rc == 0);
  check_result_only(table, "adopt", "table", "EtcdCluster " + n + "/etcd: Adopt");
  CHECK(has_line(table.err, "controller check: both operators are down"));
  CHECK(has_line(table.err, "found 1 EtcdCluster(s), 0 EtcdBackup(s), 0 EtcdBackupSchedule(s) in namespace " + n));
  CHECK(has_line(table.err, "inspected " + n + "/etcd: cluster "));
  for (const char* format : {"json", "yaml"}) {
    auto r = migrate({"adopt", "-n", n, "--skip-backup", "-o", format});
    CHECK(r.rc == 0);
    check_result_only(r, "adopt", format);
    CHECK(has_line(r.err, "inspected " + n + "/etcd"));
  }

  // The adoption: step progress on stderr, plan and result on stdout.
  auto applied = migrate({"adopt", "-n", n, "--skip-backup", "--apply", "--yes", "-o", "json"});
  CHECK(applied.rc == 0);
  check_result_only(applied, "adopt --apply", "json");
  CHECK(has_line(applied.err, n + "/etcd: etcdcluster done"));
  auto again = migrate({"adopt", "-n", n, "--skip-backup", "--apply", "--yes"});
  CHECK(again.rc == 0);
  check_result_only(again, "adopt --apply (again)", "table", "EtcdCluster " + n + "/etcd: Adopted");
  CHECK(again.out.find("\nresult:\n") != std::string::npos);

  for (const char* format : {"table", "json", "yaml"}) {
    auto v = e2e::etcd_migrate({"verify", "-n", n, "etcd", "--connect", "direct", "-o", format});
    CHECK(v.rc == 0);
    check_result_only(v, "verify", format, "EtcdCluster " + n + "/etcd: verified");
    auto ver = e2e::etcd_migrate({"version", "-o", format});
    CHECK(ver.rc == 0);
    check_result_only(ver, "version", format);
  }

  // kubectl-etcd on the adopted cluster, as the operator's.
  const char* kubectl_etcd = std::getenv("KUBECTL_ETCD");
  REQUIRE_MESSAGE(kubectl_etcd != nullptr, "KUBECTL_ETCD is not set (meson sets it)");
  const std::string snapshot = e2e::var("TESTENV_DIR") + "/" + n + "-streams";
  for (const char* format : {"table", "json"}) {
    const std::string file = snapshot + "-" + format + ".db";
    // The cluster's flags, where a command takes them.
    const std::vector<std::string> c = {"-n", n, "-c", "etcd", "--connect", "direct", "--operator", f.new_controller()};
    auto with = [](std::vector<std::string> cmd, const std::vector<std::string>& flags) {
      cmd.insert(cmd.end(), flags.begin(), flags.end());
      return cmd;
    };
    const std::vector<std::vector<std::string>> commands = {
        with({"health"}, c), with({"check"}, c), with({"status"}, c), with({"member", "list"}, c),
        with({"members"}, c), with({"alarm", "list"}, c), with({"snapshot", "save", file}, c),
        {"snapshot", "status", "--file", file}, {"snapshot", "list", "-n", n, "-c", "etcd"},
        with({"defrag", "--all", "--dry-run"}, c), with({"member", "add", "--dry-run"}, c),
        with({"member", "remove", "etcd-2", "--dry-run"}, c), with({"member", "unwedge", "--dry-run"}, c),
        {"version"}};
    for (const auto& cmd : commands) {
      std::string what;
      for (const auto& word : cmd) what += (what.empty() ? "" : " ") + word;
      std::vector<std::string> argv = {kubectl_etcd};
      argv.insert(argv.end(), cmd.begin(), cmd.end());
      argv.insert(argv.end(), {"-o", format});
      auto r = e2e::run(argv, {{"KUBECONFIG", e2e::var("KUBECONFIG")}, {"NO_COLOR", "1"}});
      INFO("kubectl-etcd " << what << ": rc " << r.rc << "\n" << r.out << r.err);
      CHECK((r.rc == 0 || r.rc == 1 || r.rc == 3));  // findings and refusals are results too
      check_result_only(r, "kubectl-etcd " + what, format);
    }
  }
}
