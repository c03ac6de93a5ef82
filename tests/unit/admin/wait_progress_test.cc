#include "admin/wait_progress.h"

#include <doctest/doctest.h>

#include <vector>

using namespace std::chrono_literals;

namespace {

struct Printed {
  std::vector<std::string> stays, progress;
};

}  // namespace

TEST_CASE("a wait held by one cause for three minutes says the cause once, then progress every 30 s") {
  // The wait of issue 36: polls every 5 s for 180 s on one member that does not answer.
  admin::WaitProgress w;
  const auto t0 = admin::WaitProgress::Clock::now();
  const std::string what = "waiting for the operator to add a member";
  const std::string stand = "etcd member etcd-xm2dk does not answer Status";
  const std::string cause = "Peer name etcd-xm2dk.etcd.ns.svc is not in peer certificate";
  Printed p;
  for (int s = 0; s < 180; s += 5) {
    if (auto line = w.observe(what, stand, cause, t0 + std::chrono::seconds(s), 180s - std::chrono::seconds(s))) {
      (line->stays ? p.stays : p.progress).push_back(line->text);
    }
  }
  REQUIRE(p.stays.size() == 1);
  CHECK(p.stays[0] == what + ": " + stand + ": " + cause);
  CHECK(p.progress.size() == 5);  // at 30, 60, 90, 120, 150 s
  CHECK(p.progress[0] == what + ": still " + stand + ", for 30s (2m30s of the budget left)");
  CHECK(p.progress[4] == what + ": still " + stand + ", for 2m30s (30s of the budget left)");
}

TEST_CASE("a new state or a new cause is a line that stays, at once") {
  admin::WaitProgress w;
  const auto t0 = admin::WaitProgress::Clock::now();
  auto a = w.observe("waiting", "EtcdMember m is pending (the operator wires it)", "", t0, 60s);
  REQUIRE(a);
  CHECK(a->stays);
  CHECK(a->text == "waiting: EtcdMember m is pending (the operator wires it)");
  CHECK_FALSE(w.observe("waiting", "EtcdMember m is pending (the operator wires it)", "", t0 + 1s, 59s));
  auto b = w.observe("waiting", "etcd member m does not answer Status", "connection refused", t0 + 2s, 58s);
  REQUIRE(b);
  CHECK(b->stays);
  CHECK(b->text == "waiting: etcd member m does not answer Status: connection refused");
  auto c = w.observe("waiting", "etcd member m does not answer Status", "deadline exceeded", t0 + 3s, 57s);
  REQUIRE(c);
  CHECK(c->stays);
  // The time stood is counted from the last change.
  auto d = w.observe("waiting", "etcd member m does not answer Status", "deadline exceeded", t0 + 33s, 27s);
  REQUIRE(d);
  CHECK_FALSE(d->stays);
  CHECK(d->text == "waiting: still etcd member m does not answer Status, for 30s (27s of the budget left)");
  // A wait without a word for where it stands.
  admin::WaitProgress plain;
  CHECK(plain.observe("waiting for pod m to be Ready", "", "", t0, 60s)->text == "waiting for pod m to be Ready");
  CHECK(plain.observe("waiting for pod m to be Ready", "", "", t0 + 30s, 30s)->text ==
        "waiting for pod m to be Ready: for 30s (30s of the budget left)");
}

TEST_CASE("describe and short_duration") {
  CHECK(admin::WaitProgress::describe("w", "", "") == "w");
  CHECK(admin::WaitProgress::describe("w", "s", "") == "w: s");
  CHECK(admin::WaitProgress::describe("w", "s", "c") == "w: s: c");
  CHECK(admin::short_duration(0ms) == "0s");
  CHECK(admin::short_duration(59999ms) == "59s");
  CHECK(admin::short_duration(60s) == "1m");
  CHECK(admin::short_duration(185s) == "3m5s");
}
