// member list asks one member, the first that answers, and dials no other
// (docs/member-list.md); --probe and -o wide ask every member for its
// Status and exit 5 when one is silent. Which members the program dials is
// read from its connect(2) calls (strace), so a test of "not dialled" can
// fail. The JSON output is checked against docs/member-list.schema.json.
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>

#include "admin_e2e.h"

using namespace admin_e2e;

namespace {

struct Traced {
  e2e::CommandResult result;
  std::set<std::string> dialled;  // member IPs connected to on the client port
};

// kubectl-etcd ARGS... under strace, and the etcd client ports it connected to.
Traced traced(const NativeCluster& c, const std::vector<std::string>& cmd, const std::vector<std::string>& args) {
  const std::string log = e2e::var("TESTENV_DIR") + "/" + e2e::unique_name("strace") + ".log";
  std::vector<std::string> argv{"strace", "-f", "-qq", "-e", "trace=connect", "-o", log, NativeCluster::binary()};
  argv.insert(argv.end(), cmd.begin(), cmd.end());
  for (const auto& a : {std::string("-c"), c.name(), std::string("-n"), c.ns(), std::string("--connect"),
                        std::string("direct"), std::string("--operator"), c.ns() + "/etcd-operator"}) {
    argv.push_back(a);
  }
  argv.insert(argv.end(), args.begin(), args.end());
  Traced t;
  t.result = e2e::run(argv);
  std::ifstream in(log);
  // gRPC connects over an AF_INET6 socket to the IPv4-mapped address.
  const std::regex call(R"re(port=htons\(2379\).*"(?:::ffff:)?([0-9]+\.[0-9]+\.[0-9]+\.[0-9]+)")re");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, call)) t.dialled.insert(m[1]);
  }
  std::remove(log.c_str());
  return t;
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& v : s) out += (out.empty() ? "" : ",") + v;
  return out;
}

std::string ip_of(const NativeCluster& c, const std::string& member) {
  for (const auto& m : c.info()["members"]) {
    if (m["name"] == member) return m["ip"];
  }
  FAIL("no member " << member);
  return {};
}

std::string member_at(const NativeCluster& c, const std::string& ip) {
  for (const auto& m : c.info()["members"]) {
    if (m["ip"] == ip) return m["name"];
  }
  return {};
}

// Every key of every row and of the document is one the schema names, and
// every key it requires is there.
void matches_schema(const json& doc) {
  std::ifstream in(e2e::source_root() + "/docs/member-list.schema.json");
  REQUIRE(in.good());
  const json schema = json::parse(in);
  // Keys copied out of the items: clang 14 does not let CHECK_MESSAGE's
  // lambda capture a structured binding.
  for (const auto& item : doc.items()) {
    const std::string key = item.key();
    CHECK_MESSAGE(schema["properties"].contains(key), key);
  }
  const json& row = schema["properties"]["members"]["items"];
  for (const auto& m : doc["members"]) {
    for (const auto& item : m.items()) {
      const std::string key = item.key();
      CHECK_MESSAGE(row["properties"].contains(key), key);
    }
    for (const auto& key : row["required"]) CHECK_MESSAGE(m.contains(key.get<std::string>()), key);
  }
}

}  // namespace

TEST_CASE("member list dials only the member that answers; --probe and -o wide dial every member") {
  NativeCluster c(FixtureOptions{});

  // Which member a fresh process asks first.
  auto first_run = traced(c, {"member", "list"}, {"-o", "json"});
  REQUIRE_MESSAGE(first_run.result.rc == 0, first_run.result.err);
  REQUIRE(first_run.dialled.size() == 1);
  const std::string first = member_at(c, *first_run.dialled.begin());
  REQUIRE_FALSE(first.empty());

  SUBCASE("a paused member is not dialled and costs nothing: exit 0, no reachable field") {
    // A follower: a paused leader would stall every read until a new one is elected.
    auto st = c.tool({"status"}, {"-o", "json"});
    REQUIRE_MESSAGE(st.rc == 0, st.err);
    std::string paused;
    const json status = parse(st);
  for (const auto& m : status["members"]) {
      if (m["role"] == "follower" && m["name"] != first) paused = m["name"];
    }
    REQUIRE_FALSE(paused.empty());
    c.act("pause", paused);
    auto t0 = Clock::now();
    auto r = traced(c, {"member", "list"}, {"-o", "json", "--command-timeout", "3s"});
    double took = seconds_since(t0);
    c.act("resume", paused);
    INFO(r.result.err);
    INFO("dialled: " << join(r.dialled) << "; first: " << first << " " << ip_of(c, first) << "; paused: " << paused);
    CHECK(r.result.rc == 0);
    CHECK(r.dialled == std::set<std::string>{ip_of(c, first)});
    CHECK(took < 3.0);  // no Status of the paused member was waited for
    auto doc = parse(r.result);
    REQUIRE(doc["members"].size() == 3);
    for (const auto& m : doc["members"]) CHECK_FALSE(m.contains("reachable"));
    matches_schema(doc);

    // The same cluster with --probe: every member dialled, the paused one silent, exit 5.
    c.act("pause", paused);
    auto p = traced(c, {"member", "list"}, {"-o", "json", "--probe", "--command-timeout", "2s"});
    c.act("resume", paused);
    INFO("dialled with --probe: " << join(p.dialled));
    CHECK(p.result.rc == 5);
    CHECK(p.dialled.size() == 3);
    auto pdoc = parse(p.result);
    REQUIRE(pdoc["members"].size() == 3);
    for (const auto& m : pdoc["members"]) CHECK(m["reachable"] == (m["name"] != paused));
    matches_schema(pdoc);
  }

  SUBCASE("the first member stopped: the next one answers, the third is never dialled") {
    c.act("stop", first);
    auto r = traced(c, {"member", "list"}, {"-o", "json"});
    INFO(r.result.err);
    INFO("dialled: " << join(r.dialled) << "; first: " << first << " " << ip_of(c, first));
    CHECK(r.result.rc == 0);
    CHECK(r.dialled.count(ip_of(c, first)) == 1);  // tried, refused
    CHECK(r.dialled.size() == 2);                   // then one other, which answered
    auto doc = parse(r.result);
    CHECK(doc["members"].size() == 3);
    for (const auto& m : doc["members"]) CHECK_FALSE(m.contains("reachable"));

    // -o wide probes: REACHABLE column, the stopped member "false", exit 5.
    auto wide = c.tool({"member", "list"}, {"-o", "wide", "--command-timeout", "2s"});
    CHECK(wide.rc == 5);
    CHECK(wide.out.find("REACHABLE") != std::string::npos);
    CHECK(wide.out.find("false") != std::string::npos);
    auto table = c.tool({"member", "list"});
    CHECK(table.rc == 0);
    CHECK(table.out.find("REACHABLE") == std::string::npos);
    c.act("start", first);
  }
}
