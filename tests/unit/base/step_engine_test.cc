#include "base/step_engine.h"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

using base::ErrorKind;
using base::Result;
using base::RunEnd;
using base::StepAnswer;

namespace {

enum class Toy { Create, Wire, Start, Mark };
const std::vector<Toy> kPlan = {Toy::Create, Toy::Wire, Toy::Start, Toy::Mark};

// A small world the steps read and write, standing in for the live state a
// real flow reads (objects, etcd). It outlives a run, as a cluster outlives
// a killed process.
struct World {
  std::map<std::string, std::string> objects;
  int writes = 0;
};

// Where a run dies: before or after the write of one step, or after its answer.
enum class Death { None, BeforeWrite, AfterWrite, AfterAnswer };

// One run of the toy flow: each step reads the world and answers done / do /
// cannot; the uid a later step needs is learnt again from the world, as a
// real flow learns it on a re-run.
struct ToyRun {
  explicit ToyRun(World& world, Toy at = Toy::Create, Death d = Death::None) : w(world), die_at(at), death(d) {}
  World& w;
  Toy die_at;
  Death death;
  std::string uid;  // learnt by Create
  bool dead = false;

  Result<StepAnswer> write(Toy id, const std::string& key, const std::string& value) {
    if (death == Death::BeforeWrite && id == die_at) {
      dead = true;
      return base::make_error(ErrorKind::Interrupted, "killed");
    }
    w.objects[key] = value;
    ++w.writes;
    if (death == Death::AfterWrite && id == die_at) {
      dead = true;
      return base::make_error(ErrorKind::Interrupted, "killed");
    }
    return StepAnswer::did(key);
  }

  Result<StepAnswer> step(Toy id) {
    switch (id) {
      case Toy::Create: {
        if (auto it = w.objects.find("member"); it != w.objects.end()) {
          uid = it->second;
          return StepAnswer::already("member");
        }
        auto r = write(id, "member", "uid-1");
        if (r) uid = "uid-1";
        return r;
      }
      case Toy::Wire:
        if (uid.empty()) return base::make_error(ErrorKind::Failed, "no uid learnt");
        if (w.objects.count("wired")) return StepAnswer::already();
        return write(id, "wired", uid);
      case Toy::Start:
        if (w.objects.count("started")) return StepAnswer::already();
        return write(id, "started", "yes");
      case Toy::Mark:
        if (w.objects.count("mark")) return StepAnswer::already();
        return write(id, "mark", w.objects["wired"] + "/" + w.objects["started"]);
    }
    return base::make_error(ErrorKind::Failed, "unknown step");
  }
  base::StepRun<Toy> run() {
    base::StepPolicy policy;
    policy.stop = [this] { return dead; };
    return base::run_steps<Toy>(
        kPlan,
        [this](Toy id) { return step(id); },
        policy, [this](const base::StepRecord<Toy>& rec) {
          if (death == Death::AfterAnswer && rec.id == die_at) dead = true;
        });
  }
};

World uninterrupted() {
  World w;
  ToyRun r(w);
  auto run = r.run();
  REQUIRE(run.finished());
  return w;
}

}  // namespace

TEST_CASE("an uninterrupted run records every step as done, in plan order") {
  World w;
  ToyRun r(w);
  auto run = r.run();
  CHECK(run.end == RunEnd::Finished);
  REQUIRE(run.records.size() == 4);
  for (std::size_t i = 0; i < kPlan.size(); ++i) {
    CHECK(run.records[i].id == kPlan[i]);
    CHECK(run.records[i].answer.acted());
  }
  CHECK(w.objects["mark"] == "uid-1/yes");
}

TEST_CASE("a second run over a finished world finds every step already done and writes nothing") {
  World w = uninterrupted();
  const int writes = w.writes;
  ToyRun again(w);
  auto run = again.run();
  CHECK(run.finished());
  for (const auto& rec : run.records) CHECK(rec.answer.kind == StepAnswer::Kind::AlreadyDone);
  CHECK(w.writes == writes);
}

// The resumption proof: killed at every step and every point of it, the
// same plan run again from the top ends in the state of an uninterrupted
// run, each write made once.
TEST_CASE("a run killed anywhere is finished by running the same plan again") {
  const World reference = uninterrupted();
  for (Toy at : kPlan) {
    for (Death d : {Death::BeforeWrite, Death::AfterWrite, Death::AfterAnswer}) {
      CAPTURE(static_cast<int>(at));
      CAPTURE(static_cast<int>(d));
      World w;
      ToyRun killed(w, at, d);
      auto first = killed.run();
      CHECK(first.end == RunEnd::Stopped);
      if (d != Death::AfterAnswer) CHECK(first.at == at);

      ToyRun resumed(w);
      auto second = resumed.run();
      CHECK(second.end == RunEnd::Finished);
      CHECK(w.objects == reference.objects);
      CHECK(w.writes == reference.writes);
      // The steps the killed run got through (its write included) answer "already done".
      bool past = false;
      for (const auto& rec : second.records) {
        bool written_before = !past && (rec.id != at || d != Death::BeforeWrite);
        CHECK(rec.answer.acted() == !written_before);
        if (rec.id == at) past = true;
      }
    }
  }
}

TEST_CASE("a step that cannot ends the run there, keeps its error and runs nothing after it") {
  std::vector<int> asked;
  auto run = base::run_steps<Toy>(kPlan, [&](Toy id) -> Result<StepAnswer> {
    asked.push_back(static_cast<int>(id));
    if (id == Toy::Wire) return base::make_error(ErrorKind::Refused, "exists without our marker", "etcdmember \"ns/m\"");
    return StepAnswer::did();
  });
  CHECK(run.end == RunEnd::Failed);
  CHECK(run.at == Toy::Wire);
  REQUIRE(run.error);
  CHECK(run.error->kind == ErrorKind::Refused);
  CHECK(asked == std::vector<int>{0, 1});
  CHECK(run.records.size() == 1);
}

TEST_CASE("quiet answers are neither recorded nor reported, but the run goes on") {
  int reported = 0;
  auto run = base::run_steps<Toy>(
      kPlan, [](Toy id) -> Result<StepAnswer> { return id == Toy::Start ? StepAnswer::quiet() : StepAnswer::already(); },
      {}, [&](const base::StepRecord<Toy>&) { ++reported; });
  CHECK(run.finished());
  CHECK(run.records.size() == 3);
  CHECK(reported == 3);
}

TEST_CASE("a stop asked before the first step writes nothing") {
  base::StepPolicy p;
  p.stop = [] { return true; };
  int asked = 0;
  auto run = base::run_steps<Toy>(kPlan, [&](Toy) -> Result<StepAnswer> { ++asked; return StepAnswer::did(); }, p);
  CHECK(run.end == RunEnd::Stopped);
  CHECK(asked == 0);
  CHECK(run.at == Toy::Create);
}

TEST_CASE("a stop after the last step still ends the run as stopped") {
  int done = 0;
  base::StepPolicy p;
  p.stop = [&] { return done == 4; };
  auto run = base::run_steps<Toy>(kPlan, [&](Toy) -> Result<StepAnswer> { ++done; return StepAnswer::did(); }, p);
  CHECK(run.end == RunEnd::Stopped);
  CHECK(!run.at);
  CHECK(run.records.size() == 4);
  CHECK(!run.error);
}

TEST_CASE("an accepted error is asked again up to the attempts, reporting each retry") {
  int calls = 0;
  std::vector<Toy> retried;
  base::StepPolicy p;
  p.attempts = 3;
  p.retry_if = [](const base::Error& e) { return e.reason == "Conflict"; };
  auto conflict = [] {
    base::Error e = base::make_error(ErrorKind::Failed, "the object changed");
    e.reason = "Conflict";
    return e;
  };
  SUBCASE("the second attempt succeeds") {
    auto run = base::run_steps<Toy>(
        {Toy::Wire}, [&](Toy) -> Result<StepAnswer> { return ++calls < 2 ? Result<StepAnswer>(conflict()) : StepAnswer::did(); },
        p, {}, [&](Toy id, const base::Error&) { retried.push_back(id); });
    CHECK(run.finished());
    CHECK(calls == 2);
    CHECK(retried == std::vector<Toy>{Toy::Wire});
  }
  SUBCASE("every attempt conflicts: the last error ends the run") {
    auto run = base::run_steps<Toy>({Toy::Wire}, [&](Toy) -> Result<StepAnswer> { ++calls; return conflict(); }, p);
    CHECK(run.end == RunEnd::Failed);
    CHECK(calls == 3);
  }
  SUBCASE("another error is not asked again") {
    auto run = base::run_steps<Toy>(
        {Toy::Wire}, [&](Toy) -> Result<StepAnswer> { ++calls; return base::make_error(ErrorKind::Failed, "no"); }, p);
    CHECK(run.end == RunEnd::Failed);
    CHECK(calls == 1);
  }
}

TEST_CASE("run ends have names") {
  CHECK(std::string(base::run_end_name(RunEnd::Finished)) == "finished");
  CHECK(std::string(base::run_end_name(RunEnd::Stopped)) == "stopped");
  CHECK(std::string(base::run_end_name(RunEnd::Failed)) == "failed");
}
