#include "admin/member_surgery.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "fixtures.h"

using namespace admin_test;

namespace {

// The flow's steps, recorded in order; each answers from the states given
// (one per read) and fails where told.
struct Recorder {
  std::vector<std::string> calls;
  std::vector<admin::LiveState> states;
  std::size_t reads = 0;
  bool stop_fails = false, read_fails_at_second = false, execute_fails = false;

  admin::SurgerySteps steps() {
    admin::SurgerySteps s;
    s.restore_operator = [this] {
      calls.push_back("restore");
      return base::Status();
    };
    s.stop_operator = [this](std::chrono::milliseconds, const std::function<void(const std::string&)>&) {
      calls.push_back("stop");
      if (stop_fails) return base::Status(base::make_error(base::ErrorKind::Timeout, "operator still running"));
      return base::Status();
    };
    s.read_state = [this](bool) -> base::Result<admin::LiveState> {
      calls.push_back("read");
      if (read_fails_at_second && reads == 1) return base::make_error(base::ErrorKind::CannotConnect, "no etcd");
      return states.at(std::min(reads++, states.size() - 1));
    };
    s.execute = [this](const admin::MemberPlan& plan, const admin::MemberRequest&,
                       const admin::ExecOptions&) -> base::Result<admin::ExecReport> {
      calls.push_back("execute:" + std::string(plan.stop_operator ? "stopped" : "running"));
      if (execute_fails) return base::make_error(base::ErrorKind::Failed, "member add failed");
      admin::ExecReport r;
      r.member = "c-ddddd";
      return r;
    };
    return s;
  }
};

admin::MemberRequest break_glass_add(bool stop_operator) {
  admin::MemberRequest r;
  r.op = admin::MemberOp::Add;
  r.break_glass = true;
  r.stop_operator = stop_operator;
  return r;
}

using Calls = std::vector<std::string>;

}  // namespace

TEST_CASE("--stop-operator: stop, plan again with it stopped, execute, restore once at the end") {
  Recorder rec;
  rec.states = {converged_state(true), converged_state(false)};
  std::vector<std::string> milestones;
  admin::SurgeryHooks hooks;
  hooks.milestone = [&](const std::string& m) { milestones.push_back(m); };
  auto r = admin::member_surgery(rec.steps(), break_glass_add(true), false, "ns/c", hooks);
  REQUIRE(r);
  REQUIRE(r->report);
  CHECK(r->report->member == "c-ddddd");
  CHECK(r->plan.stop_operator);
  CHECK(rec.calls == Calls{"read", "stop", "read", "execute:stopped", "restore"});
  CHECK(milestones == std::vector<std::string>{"operator stopped"});
}

TEST_CASE("--stop-operator: the operator is restored on every way out after the stop began") {
  SUBCASE("the stop fails") {
    Recorder rec;
    rec.states = {converged_state(true)};
    rec.stop_fails = true;
    auto r = admin::member_surgery(rec.steps(), break_glass_add(true), false, "ns/c", {});
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == base::ErrorKind::Timeout);
    CHECK(rec.calls == Calls{"read", "stop", "restore"});
  }
  SUBCASE("reading the state again fails") {
    Recorder rec;
    rec.states = {converged_state(true)};
    rec.read_fails_at_second = true;
    auto r = admin::member_surgery(rec.steps(), break_glass_add(true), false, "ns/c", {});
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == base::ErrorKind::CannotConnect);
    CHECK(rec.calls == Calls{"read", "stop", "read", "restore"});
  }
  SUBCASE("the plan made with the operator stopped is refused") {
    Recorder rec;
    auto dead_voter = converged_state(false);
    dead_voter.healthy = {1, 2};
    rec.states = {converged_state(true), dead_voter};
    auto r = admin::member_surgery(rec.steps(), break_glass_add(true), false, "ns/c", {});
    REQUIRE_FALSE(r);
    CHECK(r.error().kind == base::ErrorKind::Refused);
    CHECK(r.error().message.find("refused once the operator stopped") != std::string::npos);
    CHECK(rec.calls == Calls{"read", "stop", "read", "restore"});
  }
  SUBCASE("the execution fails") {
    Recorder rec;
    rec.states = {converged_state(true)};
    rec.execute_fails = true;
    auto r = admin::member_surgery(rec.steps(), break_glass_add(true), false, "ns/c", {});
    REQUIRE_FALSE(r);
    CHECK(r.error().message == "member add failed");
    CHECK(rec.calls == Calls{"read", "stop", "read", "execute:stopped", "restore"});
  }
}

TEST_CASE("without --stop-operator: a stop left by a killed run is undone first, and nothing is stopped") {
  Recorder rec;
  rec.states = {converged_state(false)};
  auto r = admin::member_surgery(rec.steps(), break_glass_add(false), false, "ns/c", {});
  REQUIRE(r);
  CHECK(r->report);
  CHECK(rec.calls == Calls{"restore", "read", "execute:running"});
}

TEST_CASE("a dry run, a refused plan and a declined one change nothing") {
  SUBCASE("dry run") {
    Recorder rec;
    rec.states = {converged_state(true)};
    auto r = admin::member_surgery(rec.steps(), break_glass_add(true), true, "ns/c", {});
    REQUIRE(r);
    CHECK_FALSE(r->report);
    CHECK(r->plan.stop_operator);
    CHECK(rec.calls == Calls{"read"});
  }
  SUBCASE("refused before anything: break-glass while the operator runs, without --stop-operator") {
    Recorder rec;
    rec.states = {converged_state(true)};
    auto r = admin::member_surgery(rec.steps(), break_glass_add(false), false, "ns/c", {});
    REQUIRE(r);
    CHECK(r->plan.refused());
    CHECK_FALSE(r->report);
    CHECK(rec.calls == Calls{"restore", "read"});
  }
  SUBCASE("declined: the plan's warnings were shown, then nothing ran") {
    Recorder rec;
    rec.states = {converged_state(true)};
    std::vector<std::string> warnings;
    admin::SurgeryHooks hooks;
    hooks.warning = [&](const std::string& w) { warnings.push_back(w); };
    hooks.confirm = [](const admin::MemberPlan&) { return false; };
    auto r = admin::member_surgery(rec.steps(), break_glass_add(true), false, "ns/c", hooks);
    REQUIRE(r);
    CHECK(r->declined);
    CHECK_FALSE(r->report);
    CHECK_FALSE(warnings.empty());  // four members: an even count
    CHECK(rec.calls == Calls{"read"});
  }
}

TEST_CASE("a target that does not exist is NotFound on the cluster, before any change") {
  Recorder rec;
  rec.states = {converged_state(false)};
  admin::MemberRequest req;
  req.op = admin::MemberOp::Remove;
  req.target = "c-zzzzz";
  req.break_glass = true;
  auto r = admin::member_surgery(rec.steps(), req, false, "ns/c", {});
  REQUIRE_FALSE(r);
  CHECK(r.error().kind == base::ErrorKind::NotFound);
  CHECK(r.error().object == "etcdcluster \"ns/c\"");
  CHECK(rec.calls == Calls{"restore", "read"});
}
