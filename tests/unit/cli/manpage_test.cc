#include "cli/manpage.h"
#include "cli/shared_flags.h"

#include <doctest/doctest.h>

TEST_CASE("roff_escape: backslashes, minus signs, a leading dot or quote") {
  CHECK(cli::roff_escape("a\\b") == "a\\eb");
  CHECK(cli::roff_escape("--cluster") == "\\-\\-cluster");
  CHECK(cli::roff_escape(".hidden") == "\\&.hidden");
  CHECK(cli::roff_escape("'quoted") == "\\&'quoted");
  CHECK(cli::roff_escape("plain") == "plain");
}

TEST_CASE("one page per program and per visible top-level command") {
  CLI::App app{"Inspect things.", "kubectl etcd"};
  app.footer("Exit codes: 0 ok, 128 usage error.");
  std::string cluster, format;
  auto* health = app.add_subcommand("health", "Check each member");
  health->add_option("-c,--cluster", cluster, "The EtcdCluster");
  health->add_option("-o,--output", format, "Format")->check(CLI::IsMember({"table", "json"}))->default_str("table");
  auto* snap = app.add_subcommand("snapshot", "Snapshots");
  snap->add_subcommand("save", "Save one")->add_option("path", cluster, "The file");
  app.add_subcommand("__man", "hidden")->group("");

  auto pages = cli::man_pages(app, "kubectl-etcd", "kubectl etcd", "etcd-operator-cli 0.1.0");
  REQUIRE(pages.size() == 3);
  CHECK(pages[0].file == "kubectl-etcd.1");
  CHECK(pages[1].file == "kubectl-etcd-health.1");
  CHECK(pages[2].file == "kubectl-etcd-snapshot.1");

  const auto& top = pages[0].text;
  CHECK(top.rfind(".TH KUBECTL\\-ETCD 1 \"\" \"etcd\\-operator\\-cli 0.1.0\" \"User Commands\"\n", 0) == 0);
  CHECK(top.find("kubectl\\-etcd \\- Inspect things.") != std::string::npos);
  CHECK(top.find(".BR kubectl\\-etcd\\-health (1),") != std::string::npos);
  CHECK(top.find("__man") == std::string::npos);
  CHECK(top.find(".SH EXIT STATUS\nExit codes: 0 ok, 128 usage error.") != std::string::npos);

  const auto& h = pages[1].text;
  CHECK(h.find("\\fB\\-c\\fR, \\fB\\-\\-cluster\\fR \\fITEXT\\fR\nThe EtcdCluster\n") != std::string::npos);
  CHECK(h.find("\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fItable|json\\fR\nFormat (default: table)\n") !=
        std::string::npos);

  const auto& s = pages[2].text;
  CHECK(s.find(".SH \"KUBECTL ETCD SNAPSHOT SAVE\"") != std::string::npos);
  CHECK(s.find(".SS ARGUMENTS\n.TP\n\\fIpath\\fR\nThe file\n") != std::string::npos);
}

TEST_CASE("the program's page lists the shared flags once, with the rule") {
  CLI::App app{"Inspect things.", "kubectl etcd"};
  std::string ns, format;
  for (const char* name : {"health", "status"}) {
    auto* sub = app.add_subcommand(name, "A command");
    sub->add_option("-n,--namespace", ns, "The namespace")->group(cli::kSharedGroup);
    sub->add_option("-o,--output", format, "Format")->group(cli::kSharedGroup);
  }
  auto pages = cli::man_pages(app, "kubectl-etcd", "kubectl etcd", "etcd-operator-cli 0.1.0");
  const auto& top = pages[0].text;
  auto at = top.find(".SH \"SHARED FLAGS\"");
  REQUIRE(at != std::string::npos);
  CHECK(top.find("before or after the command name", at) != std::string::npos);
  auto ns_at = top.find("\\-\\-namespace", at);
  CHECK(ns_at != std::string::npos);
  CHECK(top.find("\\-\\-namespace", ns_at + 1) == std::string::npos);
  CHECK(pages[1].text.find("SHARED FLAGS (BEFORE OR AFTER THE COMMAND)") != std::string::npos);
}
