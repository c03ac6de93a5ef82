// Watches and waits against the real apiserver and garbage collector: an
// Orphan delete, watch-based waits for deletion, a condition, a field change.
#include <chrono>
#include <thread>

#include <doctest/doctest.h>

#include "helpers.h"

using nlohmann::json;
using namespace std::chrono_literals;
namespace r = kube::resources;

namespace {
json owned_configmap(const std::string& name, const json& owner) {
  json cm = kube_e2e::configmap(name);
  cm["metadata"]["ownerReferences"] = json::array({{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                                                   {"name", owner["metadata"]["name"]},
                                                   {"uid", owner["metadata"]["uid"]}}});
  return cm;
}
}  // namespace

TEST_CASE("Orphan delete leaves the dependent; the garbage collector removes its ownerReference") {
  e2e::Namespace ns("kube-orphan");
  auto c = kube_e2e::admin();
  auto owner = c->create(r::configmaps, ns.name(), kube_e2e::configmap("owner"));
  REQUIRE(owner.ok());
  REQUIRE(c->create(r::configmaps, ns.name(), owned_configmap("dep", *owner)).ok());

  kube::DeleteOptions o;
  o.propagation = kube::Propagation::Orphan;
  auto del = c->remove(r::configmaps, ns.name(), "owner", o);
  REQUIRE_MESSAGE(del.ok(), del.error().one_line());
  REQUIRE(c->wait_deleted(r::configmaps, ns.name(), "owner", 60s).ok());
  auto dep = c->wait_for(r::configmaps, ns.name(), "dep", [](const json* obj) {
    return obj != nullptr && !(*obj)["metadata"].contains("ownerReferences");
  }, 60s);
  REQUIRE_MESSAGE(dep.ok(), dep.error().one_line());
  CHECK((*dep)["metadata"]["name"] == "dep");
}

TEST_CASE("Background delete: the garbage collector deletes the dependent; a watch sees it go") {
  e2e::Namespace ns("kube-bg");
  auto c = kube_e2e::admin();
  auto owner = c->create(r::configmaps, ns.name(), kube_e2e::configmap("owner"));
  REQUIRE(owner.ok());
  REQUIRE(c->create(r::configmaps, ns.name(), owned_configmap("dep", *owner)).ok());
  kube::DeleteOptions o;
  o.propagation = kube::Propagation::Background;
  REQUIRE(c->remove(r::configmaps, ns.name(), "owner", o).ok());
  auto gone = c->wait_deleted(r::configmaps, ns.name(), "dep", 60s);
  REQUIRE_MESSAGE(gone.ok(), gone.error().one_line());
}

TEST_CASE("wait for deletion is woken by the watch, not by polling") {
  e2e::Namespace ns("kube-waitdel");
  auto c = kube_e2e::admin();
  REQUIRE(c->create(r::configmaps, ns.name(), kube_e2e::configmap("w")).ok());
  std::thread deleter([&] {
    std::this_thread::sleep_for(1500ms);
    e2e::kubectl({"-n", ns.name(), "delete", "configmap", "w"});
  });
  auto before = c->stats().requests;
  auto start = std::chrono::steady_clock::now();
  auto st = c->wait_deleted(r::configmaps, ns.name(), "w", 30s);
  auto took = std::chrono::steady_clock::now() - start;
  deleter.join();
  REQUIRE_MESSAGE(st.ok(), st.error().one_line());
  CHECK(took < 10s);
  CHECK(c->stats().requests - before == 2);  // one list, one watch
}

TEST_CASE("wait times out with ErrorKind::Timeout naming the object") {
  e2e::Namespace ns("kube-waitto");
  auto c = kube_e2e::admin();
  REQUIRE(c->create(r::configmaps, ns.name(), kube_e2e::configmap("stays")).ok());
  auto start = std::chrono::steady_clock::now();
  auto st = c->wait_deleted(r::configmaps, ns.name(), "stays", 2s);
  auto took = std::chrono::steady_clock::now() - start;
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().kind == base::ErrorKind::Timeout);
  CHECK(st.error().one_line() == "configmaps \"" + ns.name() + "/stays\": timed out after 2s waiting");
  CHECK(took < 5s);
}

TEST_CASE("wait for a condition and for a field change") {
  e2e::Namespace ns("kube-waitcond");
  auto c = kube_e2e::admin();
  kube::Resource ec{"etcd-operator.cozystack.io", "v1alpha2", "etcdclusters", "EtcdCluster", true};
  json obj = {{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"}, {"kind", "EtcdCluster"},
              {"metadata", {{"name", "c"}}}, {"spec", {{"version", "3.6.11"}}}};
  REQUIRE(c->create(ec, ns.name(), obj).ok());
  std::thread writer([&] {
    std::this_thread::sleep_for(1s);
    kube::PatchOptions po;
    po.subresource = "status";
    auto w = c->patch(ec, ns.name(), "c", kube::PatchType::Merge,
                      {{"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"},
                                                               {"reason", "T"}, {"message", ""},
                                                               {"lastTransitionTime", "2024-01-01T00:00:00Z"}}})}}}},
                      po);
    CHECK(w.ok());
    std::this_thread::sleep_for(1s);
    CHECK(c->patch(ec, ns.name(), "c", kube::PatchType::Merge, {{"spec", {{"replicas", 5}}}}).ok());
  });
  auto ready = c->wait_for(ec, ns.name(), "c", kube::condition_is("Ready"), 30s);
  auto changed = c->wait_for(ec, ns.name(), "c", kube::field_equals("/spec/replicas", 5), 30s);
  writer.join();
  REQUIRE_MESSAGE(ready.ok(), ready.error().one_line());
  REQUIRE_MESSAGE(changed.ok(), changed.error().one_line());
  CHECK((*changed)["spec"]["replicas"] == 5);
}

TEST_CASE("a raw watch streams ADDED, MODIFIED and DELETED events") {
  e2e::Namespace ns("kube-watch");
  auto c = kube_e2e::admin();
  auto l = c->list(r::configmaps, ns.name());
  REQUIRE(l.ok());
  std::thread writer([&] {
    std::this_thread::sleep_for(500ms);
    e2e::kubectl({"-n", ns.name(), "create", "configmap", "e"});
    e2e::kubectl({"-n", ns.name(), "label", "configmap", "e", "x=y"});
    e2e::kubectl({"-n", ns.name(), "delete", "configmap", "e"});
  });
  std::vector<std::string> seen;
  kube::WatchOptions wo;
  wo.list.resource_version = (*l)["metadata"]["resourceVersion"];
  wo.list.field_selector = "metadata.name=e";
  wo.timeout = 20s;
  auto st = c->watch(r::configmaps, ns.name(), wo, [&](const kube::WatchEvent& ev) {
    if (ev.type != "BOOKMARK") seen.push_back(ev.type);
    return ev.type != "DELETED";
  });
  writer.join();
  REQUIRE_MESSAGE(st.ok(), st.error().one_line());
  CHECK(seen == std::vector<std::string>{"ADDED", "MODIFIED", "DELETED"});

  kube::WatchOptions old;
  old.list.resource_version = "1";
  old.timeout = 5s;
  auto expired = c->watch(r::configmaps, ns.name(), old, [](const kube::WatchEvent&) { return true; });
  if (!expired.ok()) {
    CHECK(expired.error().reason == "Expired");
    MESSAGE(expired.error().one_line());
  }
}
