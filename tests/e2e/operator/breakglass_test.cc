// Break-glass beside the real operator: `member add --break-glass
// --stop-operator` and `member remove --break-glass --stop-operator` on a
// cluster the operator bootstrapped. The operator is stopped (its Deployment
// at 0, its Lease expired), the surgery done, its replicas restored; then,
// for the first 60 s of the operator running again, it deletes no Pod or
// EtcdMember (UIDs unchanged) and etcd's membership equals the EtcdMembers
// (docs/operator-contract.md, "Membership changes").
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "operator_cluster.h"

using json = nlohmann::json;

namespace {

const char* kLease = "aa20b3a9.etcd-operator.cozystack.io";

json lease(const e2e::OperatorCluster& c) { return e2e::get_json({"-n", c.ns(), "lease", kLease}); }

// kind/name -> uid of the cluster's Pods and EtcdMembers.
std::map<std::string, std::string> cluster_uids(const e2e::OperatorCluster& c) {
  std::map<std::string, std::string> out;
  const json list = e2e::get_json({"-n", c.ns(), "pods,etcdmembers.etcd-operator.cozystack.io", "-l",
                                   "etcd-operator.cozystack.io/cluster=" + c.name()});
  for (const auto& o : list["items"]) {
    out[o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>()] = o["metadata"]["uid"];
  }
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

std::string supervisor_log(const e2e::OperatorCluster& c) {
  std::ifstream f(c.op().dir() + "/logs/supervisor.log");
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Every object of `uids` still there with the same UID.
void unchanged(const e2e::OperatorCluster& c, const std::map<std::string, std::string>& uids, const std::string& what) {
  const auto now = cluster_uids(c);
  for (const auto& entry : uids) {
    // Named copies: doctest's INFO captures by reference, which a structured binding does not allow (clang).
    const std::string& obj = entry.first;
    const std::string& uid = entry.second;
    auto it = now.find(obj);
    INFO(what << ": " << obj << " " << uid);
    REQUIRE(it != now.end());
    REQUIRE(it->second == uid);
  }
}

// One break-glass command with --stop-operator. Afterwards the operator was
// stopped once and leads again under a new identity; from the command's end
// until 60 s after it took its Lease again, no Pod or EtcdMember of the
// cluster (but `gone`'s, which the garbage collector deletes) is deleted or
// recreated, and then etcd equals the EtcdMembers.
void break_glass(e2e::OperatorCluster& c, const std::vector<std::string>& cmd, const std::string& what,
                 const std::string& gone = {}) {
  const json lease_before = lease(c);
  const std::size_t sup_from = supervisor_log(c).size();
  auto r = c.tool(cmd, {"--break-glass", "--stop-operator", "--yes", "--timeout", "3m"});
  INFO(what << ": stdout " << r.out << "\nstderr " << r.err);
  REQUIRE(r.rc == 0);
  auto uids = cluster_uids(c);
  if (!gone.empty()) {
    uids.erase("Pod/" + gone);
    uids.erase("EtcdMember/" + gone);
  }
  CHECK(r.err.find("operator stopped") != std::string::npos);
  // Restored: the replicas are back and the annotation that recorded them is gone.
  json dep = e2e::get_json({"-n", c.ns(), "deployment", "etcd-operator"});
  CHECK(dep["spec"]["replicas"] == 1);
  CHECK_FALSE(dep["metadata"].value("annotations", json::object())
                  .contains("cli.etcd-operator.cozystack.io/replicas-before-break-glass"));
  // It runs again and takes the Lease over (the old one expired during the stop).
  const auto transitions = lease_before["spec"].value("leaseTransitions", 0);
  e2e::wait_until(
      [&] {
        unchanged(c, uids, what + ", while the operator comes back");
        return lease(c)["spec"].value("leaseTransitions", 0) == transitions + 1;
      },
      std::chrono::seconds(90), "the restored operator to take its Lease");
  CHECK(lease(c)["spec"]["holderIdentity"] != lease_before["spec"]["holderIdentity"]);
  const std::string sup = supervisor_log(c).substr(sup_from);
  CHECK(count(sup, "operator stopped (") == 1);
  CHECK(count(sup, "operator started (") == 1);
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < end) {
    unchanged(c, uids, what + ", in the restored operator's first minute");
    std::this_thread::sleep_for(std::chrono::seconds(2));
  }
  INFO(what);
  CHECK(c.membership_mismatch() == "");
}

}  // namespace

TEST_CASE("break-glass add and remove with --stop-operator: the restored operator deletes nothing and agrees") {
  e2e::OperatorCluster c("e2e-opbreak", {});
  const std::size_t log_start = c.log_size();
  const auto before = cluster_uids(c);

  // add: 3 -> 4 by hand while the operator is down.
  break_glass(c, {"member", "add"}, "member add --break-glass --stop-operator");
  std::string added;
  for (const auto& m : c.members()) {
    if (!before.count("EtcdMember/" + m["metadata"]["name"].get<std::string>())) added = m["metadata"]["name"];
  }
  REQUIRE_FALSE(added.empty());
  CHECK(c.etcd_members().size() == 4);
  c.wait_converged("the restored operator to report 4 members converged");
  // The Pod we rendered is still ours: check names it for `member roll`, and nothing else.
  auto check = c.tool({"check"}, {"-o", "json"});
  INFO("check: " << check.out << check.err);
  json findings = json::parse(check.out)["findings"];
  REQUIRE(findings.size() == 1);
  CHECK(findings[0]["code"] == "HAND_RENDERED_POD");
  CHECK(findings[0]["member"] == added);

  // remove: the member added by hand goes (no --scale-down): etcd no longer
  // lists it when the operator returns, and the operator fills the gap with a
  // member of its own.
  break_glass(c, {"member", "remove", added}, "member remove --break-glass --stop-operator", added);
  CHECK(c.etcd_ids().count(added) == 0);
  c.wait_converged("the restored operator to fill the gap");
  CHECK(c.membership_mismatch() == "");
  CHECK(c.members().size() == 4);
  c.check_clean("after the operator filled the gap");

  auto errors = c.operator_errors(log_start);
  INFO("operator errors: " << json(errors).dump(2));
  CHECK(errors.empty());
}
