// The verbs against the real apiserver: get/list/create/replace/patch/delete,
// status subresource, dry-run, paging, Status errors, discovery, access reviews.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "helpers.h"

using nlohmann::json;
namespace r = kube::resources;

TEST_CASE("create, get, replace with resourceVersion, and a stale resourceVersion conflicts") {
  e2e::Namespace ns("kube-crud");
  auto c = kube_e2e::admin();
  auto created = c->create(r::configmaps, ns.name(), kube_e2e::configmap("a", {{"k", "1"}}));
  REQUIRE_MESSAGE(created.ok(), created.error().one_line());
  auto got = c->get(r::configmaps, ns.name(), "a");
  REQUIRE(got.ok());
  CHECK((*got)["data"]["k"] == "1");

  json stale = *got;
  json fresh = *got;
  fresh["data"]["k"] = "2";
  auto replaced = c->replace(r::configmaps, ns.name(), fresh);
  REQUIRE_MESSAGE(replaced.ok(), replaced.error().one_line());
  CHECK((*replaced)["data"]["k"] == "2");

  stale["data"]["k"] = "3";
  auto conflict = c->replace(r::configmaps, ns.name(), stale);
  REQUIRE_FALSE(conflict.ok());
  CHECK(conflict.error().reason == "Conflict");
  CHECK(conflict.error().status == 409);
  CHECK(conflict.error().kind == base::ErrorKind::Failed);
  CHECK(conflict.error().one_line().find("configmaps \"" + ns.name() + "/a\"") == 0);
  MESSAGE(conflict.error().one_line());

  auto again = c->create(r::configmaps, ns.name(), kube_e2e::configmap("a"));
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().reason == "AlreadyExists");
  CHECK(again.error().status == 409);
  CHECK(again.error().one_line() == "configmaps \"" + ns.name() + "/a\": already exists");
}

TEST_CASE("not found and not served are told apart") {
  e2e::Namespace ns("kube-404");
  auto c = kube_e2e::admin();
  auto missing = c->get(r::configmaps, ns.name(), "nope");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().kind == base::ErrorKind::NotFound);
  CHECK(missing.error().reason == "NotFound");
  CHECK(missing.error().one_line() == "configmaps \"" + ns.name() + "/nope\": not found");

  kube::Resource unserved{"example.invalid", "v1", "widgets", "Widget", true};
  auto ns404 = c->get(unserved, ns.name(), "w");
  REQUIRE_FALSE(ns404.ok());
  CHECK(ns404.error().reason == kube::kReasonNotServed);
  MESSAGE(ns404.error().one_line());

  kube::Resource wrong_version{"etcd-operator.cozystack.io", "v9", "etcdclusters", "EtcdCluster", true};
  auto v404 = c->get(wrong_version, ns.name(), "x");
  REQUIRE_FALSE(v404.ok());
  CHECK(v404.error().reason == kube::kReasonNotServed);

  kube::Resource wrong_plural{"", "v1", "podz", "Pod", true};
  auto p404 = c->list(wrong_plural, ns.name());
  REQUIRE_FALSE(p404.ok());
  CHECK(p404.error().reason == kube::kReasonNotServed);

  CHECK(c->discovery().served(r::pods).ok());
  CHECK(c->discovery().served(r::poddisruptionbudgets).ok());
  CHECK(c->discovery().served(r::jobs).ok());
  CHECK(c->discovery().served(r::statefulsets).ok());
  CHECK(c->discovery().served({"etcd-operator.cozystack.io", "v1alpha2", "etcdclusters", "", true}).ok());
  CHECK(c->discovery().served({"etcd.aenix.io", "v1alpha1", "etcdclusters", "", true}).ok());
  int fetches = c->discovery().fetches();
  CHECK(c->discovery().served(r::pods).ok());
  CHECK(c->discovery().fetches() == fetches);  // cached for the run
  auto found = c->discovery().find("etcd-operator.cozystack.io", "v1alpha2", "etcdmembers");
  REQUIRE(found.ok());
  CHECK(found->kind == "EtcdMember");
  CHECK(found->namespaced);

  auto missing_ns = c->create(r::configmaps, "no-such-namespace-x", kube_e2e::configmap("a"));
  REQUIRE_FALSE(missing_ns.ok());
  CHECK(missing_ns.error().kind == base::ErrorKind::NotFound);
  CHECK(missing_ns.error().object == "namespaces \"no-such-namespace-x\"");
}

TEST_CASE("patches: merge, JSON, strategic merge, server-side apply") {
  e2e::Namespace ns("kube-patch");
  auto c = kube_e2e::admin();
  REQUIRE(c->create(r::configmaps, ns.name(), kube_e2e::configmap("p", {{"a", "1"}})).ok());

  auto m = c->patch(r::configmaps, ns.name(), "p", kube::PatchType::Merge, {{"data", {{"b", "2"}}}});
  REQUIRE_MESSAGE(m.ok(), m.error().one_line());
  CHECK((*m)["data"] == json({{"a", "1"}, {"b", "2"}}));

  auto j = c->patch(r::configmaps, ns.name(), "p", kube::PatchType::Json,
                    json::array({{{"op", "remove"}, {"path", "/data/a"}}}));
  REQUIRE_MESSAGE(j.ok(), j.error().one_line());
  CHECK((*j)["data"] == json({{"b", "2"}}));

  // Strategic merge on a core kind: containers merge by name.
  json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "sp"}}},
              {"spec", {{"containers", json::array({{{"name", "a"}, {"image", "busybox:1"}},
                                                    {{"name", "b"}, {"image", "busybox:1"}}})}}}};
  REQUIRE(c->create(r::pods, ns.name(), pod).ok());
  auto s = c->patch(r::pods, ns.name(), "sp", kube::PatchType::Strategic,
                    {{"spec", {{"containers", json::array({{{"name", "b"}, {"image", "busybox:2"}}})}}}});
  REQUIRE_MESSAGE(s.ok(), s.error().one_line());
  REQUIRE((*s)["spec"]["containers"].size() == 2);
  CHECK((*s)["spec"]["containers"][1]["image"] == "busybox:2");

  json applied = {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                  {"metadata", {{"name", "p"}, {"labels", {{"owner", "test"}}}}}, {"data", {{"c", "3"}}}};
  kube::PatchOptions po;
  auto no_manager = c->apply(r::configmaps, ns.name(), applied, po);
  REQUIRE_FALSE(no_manager.ok());
  CHECK(no_manager.error().kind == base::ErrorKind::Usage);
  po.field_manager = "etcd-operator-cli-test";
  po.force = true;
  auto a = c->apply(r::configmaps, ns.name(), applied, po);
  REQUIRE_MESSAGE(a.ok(), a.error().one_line());
  CHECK((*a)["data"]["c"] == "3");
  CHECK((*a)["metadata"]["labels"]["owner"] == "test");
  bool managed = false;
  for (const auto& mf : (*a)["metadata"]["managedFields"]) managed = managed || mf["manager"] == "etcd-operator-cli-test";
  CHECK(managed);
}

TEST_CASE("server-side dry-run on every mutating verb leaves nothing behind") {
  e2e::Namespace ns("kube-dry");
  auto c = kube_e2e::admin();
  kube::WriteOptions dry{true, ""};
  auto created = c->create(r::configmaps, ns.name(), kube_e2e::configmap("d", {{"a", "1"}}), dry);
  REQUIRE_MESSAGE(created.ok(), created.error().one_line());
  CHECK((*created)["metadata"]["name"] == "d");
  CHECK(c->get(r::configmaps, ns.name(), "d").error().reason == "NotFound");

  REQUIRE(c->create(r::configmaps, ns.name(), kube_e2e::configmap("d", {{"a", "1"}})).ok());
  auto live = *c->get(r::configmaps, ns.name(), "d");
  live["data"]["a"] = "2";
  REQUIRE(c->replace(r::configmaps, ns.name(), live, {true, "", ""}).ok());
  kube::PatchOptions pdry;
  pdry.dry_run = true;
  REQUIRE(c->patch(r::configmaps, ns.name(), "d", kube::PatchType::Merge, {{"data", {{"a", "3"}}}}, pdry).ok());
  pdry.field_manager = "t";
  pdry.force = true;
  auto applied = c->apply(r::configmaps, ns.name(), kube_e2e::configmap("d", {{"a", "4"}}), pdry);
  REQUIRE_MESSAGE(applied.ok(), applied.error().one_line());
  kube::DeleteOptions ddry;
  ddry.dry_run = true;
  REQUIRE(c->remove(r::configmaps, ns.name(), "d", ddry).ok());
  auto after = c->get(r::configmaps, ns.name(), "d");
  REQUIRE(after.ok());
  CHECK((*after)["data"]["a"] == "1");
}

TEST_CASE("delete preconditions: a wrong uid or resourceVersion is refused") {
  e2e::Namespace ns("kube-del");
  auto c = kube_e2e::admin();
  auto obj = c->create(r::configmaps, ns.name(), kube_e2e::configmap("x"));
  REQUIRE(obj.ok());
  kube::DeleteOptions o;
  o.precondition_uid = "00000000-0000-0000-0000-000000000000";
  auto bad = c->remove(r::configmaps, ns.name(), "x", o);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().reason == "Conflict");
  MESSAGE(bad.error().one_line());
  o.precondition_uid = (*obj)["metadata"]["uid"];
  o.precondition_resource_version = "1";
  CHECK(c->remove(r::configmaps, ns.name(), "x", o).error().reason == "Conflict");
  o.precondition_resource_version = (*obj)["metadata"]["resourceVersion"];
  auto ok = c->remove(r::configmaps, ns.name(), "x", o);
  REQUIRE_MESSAGE(ok.ok(), ok.error().one_line());
  CHECK(c->get(r::configmaps, ns.name(), "x").error().kind == base::ErrorKind::NotFound);
}

TEST_CASE("paging: limit/continue over more objects than one page, selectors") {
  e2e::Namespace ns("kube-page");
  auto c = kube_e2e::admin();
  for (int i = 0; i < 25; ++i) {
    json cm = kube_e2e::configmap("cm-" + std::to_string(i));
    cm["metadata"]["labels"] = {{"parity", i % 2 == 0 ? "even" : "odd"}};
    REQUIRE(c->create(r::configmaps, ns.name(), cm).ok());
  }
  kube::ListOptions o;
  o.limit = 10;
  o.label_selector = "parity";
  auto first = c->list(r::configmaps, ns.name(), o);
  REQUIRE(first.ok());
  CHECK((*first)["items"].size() == 10);
  CHECK_FALSE((*first)["metadata"].value("continue", "").empty());

  auto before = c->stats().requests;
  auto all = c->list_all(r::configmaps, ns.name(), o);
  REQUIRE_MESSAGE(all.ok(), all.error().one_line());
  CHECK((*all)["items"].size() == 25);
  CHECK(c->stats().requests - before == 3);

  o.label_selector = "parity=even";
  CHECK(c->list_all(r::configmaps, ns.name(), o)->at("items").size() == 13);
  kube::ListOptions f;
  f.field_selector = "metadata.name=cm-7";
  CHECK(c->list(r::configmaps, ns.name(), f)->at("items").size() == 1);

  kube::ListOptions bad;
  bad.limit = 5;
  bad.continue_token = "bm90LWEtdG9rZW4=";
  auto expired = c->list(r::configmaps, ns.name(), bad);
  REQUIRE_FALSE(expired.ok());
  CHECK(expired.error().status >= 400);
  MESSAGE(expired.error().one_line());
}

TEST_CASE("status subresource reads and writes") {
  e2e::Namespace ns("kube-status");
  auto c = kube_e2e::admin();
  kube::Resource ec{"etcd-operator.cozystack.io", "v1alpha2", "etcdclusters", "EtcdCluster", true};
  json obj = {{"apiVersion", "etcd-operator.cozystack.io/v1alpha2"}, {"kind", "EtcdCluster"},
              {"metadata", {{"name", "s"}}}, {"spec", {{"version", "3.6.11"}}}};
  REQUIRE(c->create(ec, ns.name(), obj).ok());
  kube::PatchOptions po;
  po.subresource = "status";
  auto st = c->patch(ec, ns.name(), "s", kube::PatchType::Merge,
                     {{"status", {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"},
                                                               {"reason", "Test"}, {"message", ""},
                                                               {"lastTransitionTime", "2024-01-01T00:00:00Z"}}})}}}},
                     po);
  REQUIRE_MESSAGE(st.ok(), st.error().one_line());
  auto read = c->get(ec, ns.name(), "s", {"status"});
  REQUIRE(read.ok());
  CHECK(kube::condition_is("Ready")(&*read));
  // A status write through PUT on the subresource.
  json s = *read;
  s["status"]["conditions"][0]["status"] = "False";
  auto put = c->replace(ec, ns.name(), s, {false, "", "status"});
  REQUIRE_MESSAGE(put.ok(), put.error().one_line());
  CHECK(kube::condition_is("Ready", "False")(&*put));
}

TEST_CASE("SelfSubjectAccessReview answers for the admin") {
  auto c = kube_e2e::admin();
  auto a = c->can_i("create", {"etcd-operator.cozystack.io", "v1alpha2", "etcdmembers", "", true}, "default");
  REQUIRE_MESSAGE(a.ok(), a.error().one_line());
  CHECK(a->allowed);
}

TEST_CASE("concurrent requests from several threads share one client") {
  e2e::Namespace ns("kube-threads");
  auto c = kube_e2e::admin();
  REQUIRE(c->create(r::configmaps, ns.name(), kube_e2e::configmap("t")).ok());
  auto before = c->stats();
  for (int i = 0; i < 20; ++i) REQUIRE(c->get(r::configmaps, ns.name(), "t").ok());
  MESSAGE("connections for 20 sequential GETs: " << c->stats().connections - before.connections);
  CHECK(c->stats().connections - before.connections <= 1);
  CHECK(c->stats().http2 - before.http2 == 20);  // the apiserver offers h2 over TLS
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        if (c->get(r::configmaps, ns.name(), "t").ok()) ++ok;
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(ok == 160);
  MESSAGE("connections for 160 GETs over 8 threads: " << c->stats().connections);
  CHECK(c->stats().connections <= 8);
}
