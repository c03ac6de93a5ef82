#include "migrate/recorded_facts.h"

#include <doctest/doctest.h>

namespace {

nlohmann::json cluster_with(const std::string& annotation) {
  nlohmann::json c = {{"metadata", {{"namespace", "tenant-a"}, {"name", "etcd"}}}};
  c["metadata"]["annotations"]["cli.etcd-operator.cozystack.io/adoption"] = annotation;
  return c;
}

std::string error_of(const std::string& annotation) {
  auto f = migrate::read_recorded_facts(cluster_with(annotation));
  REQUIRE_FALSE(f);
  CHECK(f.error().kind == base::ErrorKind::Failed);
  return f.error().one_line();
}

}  // namespace

TEST_CASE("read_recorded_facts: what adopt --apply wrote") {
  auto f = migrate::read_recorded_facts(cluster_with(
      R"({"legacyUID":"u-1","clusterID":"00000000000000aa","revision":42,"members":{"etcd-0":{"memberID":"0000000000000001",
      "podUID":"p-0","restarts":0,"volumeName":"pv-0","hashKV":4294967295}},"controllerRevisions":["etcd-5d8"]})"));
  REQUIRE(f);
  CHECK(f->legacy_uid == "u-1");
  CHECK(f->cluster_id == "00000000000000aa");
  CHECK(f->revision == 42);
  REQUIRE(f->members.count("etcd-0") == 1);
  CHECK(f->members.at("etcd-0").member_id == "0000000000000001");
  CHECK(f->members.at("etcd-0").volume_name == "pv-0");
  CHECK(f->members.at("etcd-0").hash_kv == 4294967295U);
  CHECK(f->controller_revisions == std::vector<std::string>{"etcd-5d8"});
}

TEST_CASE("read_recorded_facts: a hand-edited or cut annotation is one line naming object, field and expectation") {
  const std::string prefix = "EtcdCluster tenant-a/etcd: annotation cli.etcd-operator.cozystack.io/adoption: ";
  CHECK(error_of(R"({"members":5})").rfind(prefix + "members: expected an object, found an integer;", 0) == 0);
  CHECK(error_of(R"({"members":{"etcd-0":"x"}})").rfind(prefix + "members.etcd-0: expected an object, found a string", 0) == 0);
  CHECK(error_of(R"({"members":{"etcd-0":{"memberID":1}}})").rfind(prefix + "members.etcd-0.memberID: expected a string", 0) == 0);
  CHECK(error_of(R"({"revision":"42","members":{}})").rfind(prefix + "revision: expected an integer from 0", 0) == 0);
  CHECK(error_of(R"({"revision":1e30,"members":{}})").find("revision: expected an integer") != std::string::npos);
  CHECK(error_of(R"({"members":{"m":{"hashKV":4294967296}}})").find("members.m.hashKV: expected an integer from 0 to 4294967295, found 4294967296") != std::string::npos);
  CHECK(error_of(R"({"members":{},"controllerRevisions":[1]})").find("controllerRevisions.0: expected a string") != std::string::npos);
  CHECK(error_of(R"({"clusterID":"00000000000000aa","revision":4)").rfind(prefix + "not JSON (44 bytes; cut short or edited?)", 0) == 0);
  CHECK(error_of(R"([1,2])").rfind(prefix + "the document: expected an object, found an array", 0) == 0);
  CHECK(error_of(R"({"clusterID":"x"})").rfind(prefix + "members: expected an object, found null", 0) == 0);
  CHECK(error_of(R"({"members":5})").find("; put back the value adopt --apply wrote") != std::string::npos);
  auto none = migrate::read_recorded_facts(nlohmann::json{{"metadata", {{"name", "etcd"}}}});
  REQUIRE_FALSE(none);
  CHECK(none.error().kind == base::ErrorKind::NotFound);
}
