#include "operator/agent_result.h"

#include <doctest/doctest.h>

#include <string>

using op::parse_agent_result;

namespace {
const std::string kSha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
}

TEST_CASE("the agent's result line gives the artefact's uri, size and sha256") {
  std::string log = "{\"level\":\"info\",\"msg\":\"saving\"}\nsnapshot uploaded: uri=\"s3://b/p/ns-etcd-migration.db\" "
                    "size=20512 sha256=" + kSha + "\n";
  auto r = parse_agent_result(log);
  REQUIRE(r);
  CHECK(r->uri == "s3://b/p/ns-etcd-migration.db");
  CHECK(r->size == 20512);
  CHECK(r->sha256 == kSha);
}

TEST_CASE("the last result line counts; a log without one, or a cut one, gives nothing") {
  std::string two = "snapshot uploaded: uri=\"file:///snapshot/data/a.db\" size=1 sha256=" + kSha +
                    "\nsnapshot uploaded: uri=\"file:///snapshot/data/b.db\" size=2 sha256=" + kSha;
  auto r = parse_agent_result(two);
  REQUIRE(r);
  CHECK(r->uri == "file:///snapshot/data/b.db");
  CHECK(r->size == 2);
  CHECK_FALSE(parse_agent_result(""));
  CHECK_FALSE(parse_agent_result("error: context deadline exceeded\n"));
  CHECK_FALSE(parse_agent_result("snapshot uploaded: uri=\"s3://b/k\" size=12 sha256=" + kSha.substr(0, 40)));
  CHECK_FALSE(parse_agent_result("snapshot uploaded: uri=\"s3://b/k\" size= sha256=" + kSha));
  CHECK_FALSE(parse_agent_result("snapshot uploaded: uri=\"s3://b/k\" size=12 sha256=" +
                                 std::string(64, 'G')));
}

TEST_CASE("a failed agent's last words: the last non-empty line, cut to the limit") {
  CHECK(op::snapshot_job_name("first") == "first-snapshot");
  CHECK(op::last_log_line("starting\nerror: put s3://b/k: 403 Forbidden\n\n") == "error: put s3://b/k: 403 Forbidden");
  CHECK(op::last_log_line("only line") == "only line");
  CHECK(op::last_log_line("\n \n") == "");
  CHECK(op::last_log_line("a\n" + std::string(400, 'x'), 10) == std::string(10, 'x') + "...");
}
