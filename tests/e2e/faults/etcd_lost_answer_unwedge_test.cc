// A lost answer to etcd's own write during `kubectl-etcd member unwedge` of
// an orphan learner (docs/server-faults.md#lost-answers-to-etcds-writes):
// etcd applied the MemberRemove, but the connection dropped before its
// answer reached the program (grpc_lost_answer_proxy.py). One uninterrupted
// run lists its writes; then a fresh cluster with that answer lost, and the
// same command again. The end state is the uninterrupted run's: the learner
// gone, the three members and their EtcdMembers as they were.
#include "grpc_proxy_e2e.h"

using namespace grpc_e2e;

namespace {

// A learner nobody owns (no EtcdMember, no Pod), as a half-finished hand
// add leaves it.
void add_orphan(const NativeCluster& c) {
  c.reconfigure({"member", "add", "orphan", "--learner", "--peer-urls",
                 "http://orphan." + c.name() + "." + c.ns() + ".svc:2380"});
  REQUIRE(member_e2e::etcd_members(c).size() == 4);
}

e2e::CommandResult unwedge(const NativeCluster& c) {
  return member_e2e::member(c, {"unwedge", "--yes"}, {}, false);
}

}  // namespace

TEST_CASE("member unwedge of an orphan learner: the answer to etcd's MemberRemove lost, then again") {
  std::vector<std::string> writes;
  End want;
  {
    NativeCluster c(plaintext_fixture());
    add_orphan(c);
    const std::string work = faults_e2e::tmpdir("e2e-grpc-unwedge-0");
    GrpcProxy proxy(c, work);
    auto r = unwedge(c);
    INFO("uninterrupted: " << r.out << r.err);
    REQUIRE(r.rc == 0);
    writes = proxy.methods();
    MESSAGE("W = " << writes.size() << " writes; the calls: " << proxy.calls_line());
    want = end_state(c);
    CHECK(want == End{3, 3, 0, true, want.counts});
    member_e2e::check_clean(c, "uninterrupted unwedge");
    e2e::run({"rm", "-rf", work});
  }
  REQUIRE(writes == std::vector<std::string>{"MemberRemove"});
  NativeCluster c(plaintext_fixture());
  add_orphan(c);
  const std::string work = faults_e2e::tmpdir("e2e-grpc-unwedge-MemberRemove");
  GrpcProxy proxy(c, work, "MemberRemove");
  auto first = unwedge(c);
  MESSAGE("MemberRemove: " << proxy.cut() << "; first run rc " << first.rc << ": " << last_line(first.err));
  INFO("first run: " << first.out << first.err);
  REQUIRE_FALSE(proxy.cut().empty());
  CHECK(first.rc == 0);
  auto again = unwedge(c);
  INFO("re-run: " << again.out << again.err);
  CHECK(again.rc == 0);
  CHECK(again.out.find("nothing to unwedge") != std::string::npos);
  CHECK(end_state(c) == want);
  member_e2e::check_clean(c, "after the lost answer to MemberRemove");
  e2e::run({"rm", "-rf", work});
}
