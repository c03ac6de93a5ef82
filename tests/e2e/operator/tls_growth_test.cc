// An adopted TLS cluster grows through the real operator: the members it
// adds are named <c>-<random> under the headless Service <c>, so the
// certificates must cover *.<c>.<ns>.svc. The legacy fixture's certificates
// carry that wildcard; when they list only today's members, `member add`
// refuses and says what to add (docs/operator-contract.md, "Certificates").
#include <doctest/doctest.h>

#include "../migrate/adopt_checks.h"
#include "operator_e2e.h"

using json = nlohmann::json;

namespace {

e2e::CommandResult member_add(const e2e::LegacyFixture& f, const std::vector<std::string>& extra) {
  std::vector<std::string> argv = {e2e::kubectl_etcd_path(), "member", "add", "-n", f.ns(), "-c", f.name(),
                                   "--connect", "direct", "--operator", f.new_controller(), "--yes", "--timeout", "4m"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return e2e::run(argv, {{"KUBECONFIG", e2e::var("KUBECONFIG")}, {"NO_COLOR", "1"}});
}

// Adopts the fixture with the operator at 0, then lets it take over.
void adopt_and_hand_over(const e2e::LegacyFixture& f, e2e::Operator& op) {
  auto r = e2e::apply(f, {"--skip-backup"});
  INFO("adopt: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  op.scale(1);
  op.wait_leading();
  e2e::wait_until([&] { return e2e::converged(f.ns(), f.name()); }, std::chrono::seconds(120),
                  "the operator to take over " + f.ns() + "/" + f.name());
}

}  // namespace

TEST_CASE("an adopted TLS cluster whose certificates carry the wildcard grows from 3 to 4 through the operator") {
  e2e::Namespace ns("e2e-tls-grow");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls"});
  e2e::Operator op(f.new_controller(), ns.name(), 0);
  e2e::PodRunner runner(ns.name());  // runs the Pod of the member the operator adds
  adopt_and_hand_over(f, op);

  auto r = member_add(f, {"--wait"});
  INFO("member add: " << r.out << r.err);
  REQUIRE(r.rc == 0);
  // --wait returned once the operator added the member and promoted it.
  auto live = f.etcdctl({"member", "list", "--write-out=json"});
  REQUIRE(live.rc == 0);
  json members = json::parse(live.out)["members"];
  CHECK(members.size() == 4);
  for (const auto& m : members) CHECK(m.value("isLearner", false) == false);
  e2e::wait_until([&] { return e2e::converged(f.ns(), f.name()); }, std::chrono::seconds(120),
                  "the operator to report 4 ready members");
  json added;
  const json objects = e2e::get_json({"-n", ns.name(), "etcdmembers"})["items"];
  for (const auto& m : objects) {
    const std::string name = m["metadata"]["name"];
    if (name.rfind("etcd-", 0) == 0 && name.size() == 10) added = m;
  }
  REQUIRE(added.is_object());
  CHECK(added["status"]["isVoter"] == true);
  // The new member answers over TLS at the name the operator gave it.
  const std::string host = added["metadata"]["name"].get<std::string>() + ".etcd." + ns.name() + ".svc";
  auto e = f.etcd_env();
  auto status = e2e::run({e2e::var("TESTENV_ETCD_36") + "/etcdctl", "--endpoints", "https://" + host + ":2379",
                          "--cacert", e["ETCD_CACERT"], "--cert", e["ETCD_CERT"], "--key", e["ETCD_KEY"], "endpoint",
                          "status"});
  CHECK_MESSAGE(status.rc == 0, status.err);

  auto check = e2e::run({e2e::kubectl_etcd_path(), "check", "-n", ns.name(), "-c", "etcd", "--connect", "direct",
                         "--operator", f.new_controller()},
                        {{"KUBECONFIG", e2e::var("KUBECONFIG")}, {"NO_COLOR", "1"}});
  CHECK_MESSAGE(check.rc == 0, check.out << check.err);
}

TEST_CASE("certificates listing only today's members: member add is refused with the name to add, nothing changes") {
  e2e::Namespace ns("e2e-tls-exact");
  e2e::LegacyFixture f(ns.name(), "etcd", {"--version", "3.6", "--tls", "--exact-sans"});
  e2e::Operator op(f.new_controller(), ns.name(), 0);
  adopt_and_hand_over(f, op);
  const auto before = e2e::versions(ns.name(), {"etcdclusters.etcd-operator.cozystack.io", "etcdmembers"});

  for (const std::vector<std::string>& mode :
       {std::vector<std::string>{}, std::vector<std::string>{"--break-glass", "--skip-operator-check"}}) {
    auto r = member_add(f, mode);
    INFO("member add: " << r.out << r.err);
    CHECK(r.rc == 3);
    CHECK(r.err.find("does not cover etcd-00000.etcd." + ns.name() + ".svc") != std::string::npos);
    CHECK(r.err.find("add the DNS name *.etcd." + ns.name() + ".svc") != std::string::npos);
    CHECK(r.err.find("Secret etcd-server-tls") != std::string::npos);
  }
  CHECK(e2e::versions(ns.name(), {"etcdclusters.etcd-operator.cozystack.io", "etcdmembers"}) == before);
  json cluster = e2e::get_json({"-n", ns.name(), "etcdclusters.etcd-operator.cozystack.io", "etcd"});
  CHECK(cluster["spec"]["replicas"] == 3);
}
