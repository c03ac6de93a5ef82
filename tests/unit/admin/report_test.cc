// Exit codes and renderings of the reports (health, status, alarms, snapshot file).
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "admin/check.h"
#include "admin/health.h"
#include "admin/maintenance.h"
#include "admin/snapshot.h"
#include "admin/status.h"
#include "base/sha256.h"

namespace {

admin::HealthRow row(bool reachable, bool healthy) {
  admin::HealthRow r;
  r.name = "m";
  r.reachable = reachable;
  r.healthy = healthy;
  return r;
}

std::string temp_path(const char* name) {
  return std::string(P_tmpdir) + "/admin-unit-" + std::to_string(::getpid()) + "-" + name;
}

}  // namespace

TEST_CASE("health: 0 healthy, 1 one unhealthy or unreachable or a finding, 2 none answered") {
  admin::HealthReport r;
  r.members = {row(true, true), row(true, true)};
  CHECK(admin::health_exit_code(r) == 0);
  r.members[1] = row(false, false);
  CHECK(admin::health_exit_code(r) == 1);
  r.members[0] = row(false, false);
  CHECK(admin::health_exit_code(r) == 2);
  r.members = {row(true, true)};
  r.findings.push_back({"GHOST_MEMBER", admin::Severity::Error, "x", 1, "m"});
  CHECK(admin::health_exit_code(r) == 1);
}

TEST_CASE("status: 5 when some members did not answer, 2 when none did") {
  admin::StatusReport r;
  r.answered = 3;
  CHECK(admin::status_exit_code(r) == 0);
  r.answered = 2;
  r.unreachable = 1;
  CHECK(admin::status_exit_code(r) == 5);
  r.answered = 0;
  CHECK(admin::status_exit_code(r) == 2);
}

TEST_CASE("member list: exit 0 once the membership was read; 5 only when a probe found a member silent") {
  admin::MemberListReport r;
  CHECK(admin::member_list_exit_code(r) == 0);
  r.probed = true;
  CHECK(admin::member_list_exit_code(r) == 0);
  r.unreachable = 1;
  CHECK(admin::member_list_exit_code(r) == 5);
}

TEST_CASE("member list: REACHABLE is a column only with the probe; CLIENT URL only wide") {
  nlohmann::ordered_json row = {{"name", "c-a"},      {"id", "0000000000000010"}, {"role", "voter"},
                                {"started", true},    {"peerURLs", {"https://a:2380"}},
                                {"clientURLs", {"https://a:2379"}}, {"cr", "ok"}, {"pod", "c-a"},
                                {"findings", nlohmann::ordered_json::array()}};
  admin::MemberListReport plain;
  plain.members.push_back(row);
  const auto doc = admin::member_list_document(plain);
  auto table = output::render(doc, admin::member_list_view(false), output::Format::Table);
  CHECK(table.find("REACHABLE") == std::string::npos);
  CHECK(table.find("CLIENT URL") == std::string::npos);
  CHECK(nlohmann::json::parse(output::render(doc, admin::member_list_view(false), output::Format::Json))["members"][0]
            .contains("reachable") == false);

  admin::MemberListReport probed;
  probed.probed = true;
  row["reachable"] = false;
  probed.members.push_back(row);
  const auto pdoc = admin::member_list_document(probed);
  auto ptable = output::render(pdoc, admin::member_list_view(true), output::Format::Table);
  CHECK(ptable.find("REACHABLE") != std::string::npos);
  CHECK(ptable.find("CLIENT URL") == std::string::npos);
  auto wide = output::render(pdoc, admin::member_list_view(true), output::Format::Wide);
  CHECK(wide.find("REACHABLE") != std::string::npos);
  CHECK(wide.find("CLIENT URL") != std::string::npos);
  CHECK(nlohmann::json::parse(output::render(pdoc, admin::member_list_view(true), output::Format::Json))["members"][0]
            ["reachable"] == false);
}

TEST_CASE("health table: findings follow as a second table; JSON has both") {
  admin::HealthReport r;
  auto a = row(true, true);
  a.name = "c-a";
  a.id = 0x10;
  a.role = "leader";
  a.took = 0.012;
  r.members = {a};
  r.findings.push_back({"ORPHAN_LEARNER", admin::Severity::Error, "https://x:2380", 0x20, "learner"});
  auto doc = admin::health_document(r);
  CHECK(admin::render_report(doc, admin::health_view(), output::Format::Table) ==
        "NAME   ID                 ROLE     HEALTHY   TOOK   ERROR\n"
        "c-a    0000000000000010   leader   true      12ms   -\n"
        "\nFINDINGS\n"
        "CODE             SEVERITY   MEMBER           ID                 MESSAGE\n"
        "ORPHAN_LEARNER   error      https://x:2380   0000000000000020   learner\n");
  auto json = admin::render_report(doc, admin::health_view(), output::Format::Json);
  auto parsed = nlohmann::json::parse(json);
  CHECK(parsed["members"][0]["took"] == doctest::Approx(0.012));
  CHECK(parsed["findings"][0]["code"] == "ORPHAN_LEARNER");
}

TEST_CASE("check prints 'no findings' and [] in JSON") {
  auto doc = admin::check_document({});
  CHECK(admin::render_report(doc, admin::check_view(), output::Format::Table) == "no findings\n");
  CHECK(output::render(doc, admin::check_view(), output::Format::Json) == "{\n  \"findings\": []\n}\n");
}

TEST_CASE("alarm list: an explicit line when there is none, [] in JSON") {
  CHECK(output::render(admin::alarm_document({}, false), admin::alarm_view(false), output::Format::Table) == "no alarms\n");
  CHECK(output::render(admin::alarm_document({}, false), admin::alarm_view(false), output::Format::Json) == "[]\n");
  std::vector<admin::AlarmRow> rows{{"c-a", 0xabc, "NOSPACE", {}, {}}};
  CHECK(output::render(admin::alarm_document(rows, false), admin::alarm_view(false), output::Format::Table) ==
        "MEMBER   ID                 ALARM\nc-a      0000000000000abc   NOSPACE\n");
}

TEST_CASE("compact: the current revision, --revision, --keep; nonsense refused") {
  CHECK(*admin::compact_target({}, 100) == 100);
  CHECK(*admin::compact_target({50, {}, false}, 100) == 50);
  CHECK(*admin::compact_target({{}, 10, false}, 100) == 90);
  CHECK(admin::compact_target({{}, 100, false}, 100).error().kind == base::ErrorKind::Refused);
  CHECK(admin::compact_target({200, {}, false}, 100).error().kind == base::ErrorKind::Usage);
  CHECK(admin::compact_target({5, 5, false}, 100).error().kind == base::ErrorKind::Usage);
}

TEST_CASE("effective quota: Status, else spec.options, else 2 GiB") {
  nlohmann::json c = {{"spec", {{"options", {{"quotaBackendBytes", 1000}}}}}};
  CHECK(admin::effective_quota(5, c) == 5);
  CHECK(admin::effective_quota(0, c) == 1000);
  CHECK(admin::effective_quota(0, nlohmann::json()) == 2147483648LL);
}

TEST_CASE("a snapshot file is valid when its trailer is the sha256 of the rest") {
  std::string db(512 * 3, 'x');
  base::Sha256 sha;
  sha.update(db);
  auto d = sha.finish();
  std::string trailer(reinterpret_cast<const char*>(d.data()), d.size());
  auto path = temp_path("snap.db");
  {
    std::ofstream f(path, std::ios::binary);
    f << db << trailer;
  }
  auto ok = admin::verify_snapshot_file(path);
  CHECK(ok.valid);
  CHECK(ok.size == db.size() + 32);
  CHECK(ok.sha256 == base::to_hex(d));

  {
    std::ofstream f(path, std::ios::binary);
    std::string bad = db;
    bad[700] = 'y';
    f << bad << trailer;
  }
  auto corrupt = admin::verify_snapshot_file(path);
  CHECK_FALSE(corrupt.valid);
  CHECK(corrupt.error.find("does not match") != std::string::npos);

  {
    std::ofstream f(path, std::ios::binary);
    f << db.substr(0, 1000);
  }
  auto cut = admin::verify_snapshot_file(path);
  CHECK_FALSE(cut.valid);
  CHECK(cut.error.find("size % 512") != std::string::npos);
  std::remove(path.c_str());

  auto missing = admin::verify_snapshot_file(path);
  CHECK_FALSE(missing.valid);
  CHECK(missing.error.find("cannot open") != std::string::npos);
  REQUIRE(missing.cannot_open.has_value());
  CHECK(missing.cannot_open->kind == base::ErrorKind::NotFound);
  CHECK(missing.cannot_open->one_line() == "file \"" + path + "\": cannot open: No such file or directory; check the path");
  CHECK_FALSE(corrupt.cannot_open.has_value());
}
