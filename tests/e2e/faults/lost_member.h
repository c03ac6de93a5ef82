// The end state of a break-glass member flow, for the lost-answer matrices
// (docs/server-faults.md#lost-answers): what must equal an uninterrupted
// run's. A new member's name comes from generateName and its ID from etcd,
// and every fixture has IDs of its own, so members are counted: those of
// the fixture that stay must keep their IDs.
#pragma once

#include <algorithm>
#include <sstream>

#include "../admin/member_e2e.h"
#include "lost_matrix.h"

namespace faults_e2e {

struct MemberEnd {
  int kept = 0;          // the fixture's EtcdMembers left, etcd listing each with its ID of before
  int changed = 0;       // the fixture's EtcdMembers left that etcd lists under another ID, or not at all
  int others = 0;        // EtcdMembers not of the fixture
  int etcd = 0;          // etcd's members
  int learners = 0;      // of which learners
  int voters_marked = 0; // EtcdMembers with status.isVoter
  std::string counts;    // spec/observed replicas, readyMembers
  bool operator==(const MemberEnd& o) const {
    return kept == o.kept && changed == o.changed && others == o.others && etcd == o.etcd && learners == o.learners &&
           voters_marked == o.voters_marked && counts == o.counts;
  }
};

inline std::ostream& operator<<(std::ostream& os, const MemberEnd& e) {
  return os << "fixture's EtcdMembers " << e.kept << " kept, " << e.changed << " changed; " << e.others << " new; etcd " << e.etcd << " members ("
            << e.learners << " learners); isVoter " << e.voters_marked << "; counts " << e.counts;
}

inline MemberEnd member_end(const NativeCluster& c) {
  MemberEnd e;
  std::map<std::string, std::string> ids;  // etcd name -> hex ID
  for (const auto& m : member_e2e::etcd_members(c)) {
    ++e.etcd;
    e.learners += m.value("isLearner", false) ? 1 : 0;
    ids[m.value("name", std::string())] = member_e2e::hex_id(m);
  }
  const json list = json::parse(c.kubectl({"get", "etcdmember", "-o", "json"}));
  const auto fixture = c.members();
  for (const auto& m : list["items"]) {
    const std::string name = m["metadata"]["name"];
    if (m.contains("status") && m["status"].value("isVoter", false)) ++e.voters_marked;
    if (std::find(fixture.begin(), fixture.end(), name) == fixture.end()) {
      ++e.others;
      continue;
    }
    if (ids.count(name) != 0 && ids[name] == c.id_of(name)) {
      ++e.kept;
    } else {
      ++e.changed;
    }
  }
  e.counts = c.kubectl({"get", "etcdcluster", c.name(), "-o",
                        "jsonpath={.spec.replicas}/{.status.observed.replicas}/{.status.readyMembers}"});
  return e;
}

// A follower of the fixture: its removal needs no handover (the matrices
// are about the writes).
inline std::string follower(const NativeCluster& c) {
  const std::string leader = leader_of(c);
  for (const auto& m : c.members()) {
    if (m != leader) return m;
  }
  FAIL("no follower");
  return {};
}

inline e2e::CommandResult member_via(const NativeCluster& c, std::vector<std::string> args,
                                     const std::string& kubeconfig) {
  std::map<std::string, std::string> env;
  if (!kubeconfig.empty()) env["KUBECONFIG"] = kubeconfig;
  args.insert(args.end(), {"-o", "json"});
  return member_e2e::member(c, args, env);
}

// A key put before the flow, read back after it: the data survived.
inline void put_marker(const NativeCluster& c) { c.ctl({"put", "/lost-answer/marker", c.ns()}); }
inline void check_marker(const NativeCluster& c) {
  CHECK(c.ctl({"get", "/lost-answer/marker", "--print-value-only"}).find(c.ns()) != std::string::npos);
}

// The uninterrupted run of a member command (`args` of a fresh 3-member
// cluster) through a proxy that only counts: its writes' kinds, by number,
// and the end state every case must reach.
struct Uninterrupted {
  std::vector<std::string> kinds;
  MemberEnd end;
};

template <typename Args>
Uninterrupted uninterrupted(const std::string& what, Args args) {
  Uninterrupted u;
  NativeCluster c(member_e2e::runner_fixture("3.6", 3));
  const std::string work = tmpdir("e2e-lost-" + what + "-0");
  FaultProxy proxy(work, FaultProxy::lose(0));
  auto r = member_via(c, args(c), proxy.kubeconfig());
  INFO("uninterrupted: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  u.kinds = write_kinds(proxy);
  u.end = member_end(c);
  member_e2e::check_clean(c, "uninterrupted " + what);
  e2e::run({"rm", "-rf", work});
  MESSAGE("W = " << u.kinds.size() << " mutating requests, " << lost_cases(u.kinds).size()
                 << " cases (one per kind, or LOST_ALL/LOST_N); end state " << u.end);
  return u;
}

}  // namespace faults_e2e
