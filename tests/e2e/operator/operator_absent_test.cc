// What kubectl-etcd says when the real operator does not do what a command
// waits for (issue 36, item 5), on a one-member cluster it bootstrapped:
// 1. defrag --via-cr: this operator ships EtcdDefrag without a controller
//    (docs/operator-contract.md#etcddefrag), so nothing ever writes the
//    object's status. The run shows progress, says within the pickup time
//    (--timeout, shorter than the minute, here) that nothing picked the
//    object up and what should have, deletes it and is refused
//    (docs/rules.md#one-shot-request-pickup).
// 2. The operator scaled to 0 (kubectl scale, as a user does): once its
//    Lease has expired, health reports it as scaled down, not as a
//    namespace filter (docs/break-glass-design.md#operator-active).
#include <doctest/doctest.h>

#include <chrono>

#include "operator_cluster.h"

using json = nlohmann::json;

TEST_CASE("the real operator without an EtcdDefrag controller, then scaled to 0: what defrag --via-cr and health say") {
  e2e::OperatorCluster c("e2e-opabsent", {.replicas = 1});
  const std::string defrags = "etcddefrags.etcd-operator.cozystack.io";

  const auto started = std::chrono::steady_clock::now();
  auto defrag = c.tool({"defrag", "--via-cr", "--name", "nobody", "--timeout", "15s"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  INFO("defrag --via-cr: exit " << defrag.rc << " in " << took << " s\n" << defrag.err);
  CHECK(defrag.rc == 3);
  CHECK(defrag.err.find("note: EtcdDefrag " + c.ns() + "/nobody: no status after 10s") != std::string::npos);
  CHECK(defrag.err.find("error: etcddefrag") != std::string::npos);
  CHECK(defrag.err.find("nothing picked it up within 15s (no status written): the EtcdDefrag controller of the "
                        "etcd-operator.cozystack.io/v1alpha2 operator is missing or not running") != std::string::npos);
  CHECK(took < 40);
  CHECK(e2e::kubectl_result({"-n", c.ns(), "get", defrags, "nobody"}).rc != 0);

  c.op().scale(0);
  // The Lease outlives the process by its duration (15 s) and the tool's
  // 5 s of skew: only then is the operator inactive.
  auto inactive = [&](const e2e::CommandResult& h) {
    if (h.out.empty() || h.out[0] != '{') return json();
    for (const auto& f : json::parse(h.out).value("findings", json::array())) {
      if (f.value("code", "") == "OPERATOR_INACTIVE") return f;
    }
    return json();
  };
  e2e::wait_until([&] { return inactive(c.tool({"health"}, {"-o", "json"})).is_object(); }, std::chrono::seconds(90),
                  "health to find the operator inactive");
  auto health = c.tool({"health"}, {"-o", "json"});
  INFO("health: exit " << health.rc << "\n" << health.out << health.err);
  CHECK(health.rc == 1);
  const std::string message = inactive(health).value("message", "");
  CHECK(message.find("the operator is scaled down (its Deployment has spec.replicas 0)") == 0);
  CHECK(message.find("WATCH_NAMESPACE") == std::string::npos);
  CHECK(health.err.find("WATCH_NAMESPACE") == std::string::npos);
}
