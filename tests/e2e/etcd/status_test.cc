// Status of each member over TLS, the fan-out under one deadline with a
// stopped and a paused member, and the TLS server-name override.
#include <unistd.h>

#include <sstream>

#include "etcd/errors.h"
#include "etcd_e2e.h"

using namespace etcd_e2e;

namespace {

void status_of_each_member(const std::string& version) {
  CAPTURE(version);
  e2e::EtcdCluster c(options(version, 3, true));
  auto cl = client_for(c);
  auto list = must(cl->member_list(), "member list");
  auto urls = c.client_urls();

  auto all = cl->status_all(urls);
  REQUIRE(all.size() == 3);
  std::uint64_t leader = 0;
  int leaders = 0;
  for (std::size_t i = 0; i < all.size(); ++i) {
    CAPTURE(urls[i]);
    REQUIRE_MESSAGE(all[i].result.ok(), all[i].result.error().one_line());
    const auto& s = *all[i].result;
    CHECK(all[i].endpoint == urls[i]);
    CHECK(s.endpoint == urls[i]);
    CHECK(s.header.member_id == etcdctl_member_id(c, c.member_names()[i]));
    CHECK(s.header.cluster_id == list.header.cluster_id);
    CHECK(s.version.rfind(version + ".", 0) == 0);
    CHECK(s.db_size > 0);
    CHECK(s.db_size_in_use > 0);
    CHECK(s.db_size_in_use <= s.db_size);
    CHECK(s.raft_index > 0);
    CHECK(s.raft_applied_index > 0);
    CHECK(s.raft_term > 0);
    CHECK(s.errors.empty());
    CHECK_FALSE(s.is_learner);
    if (version == "3.6") {
      CHECK(s.db_size_quota > 0);
      CHECK_FALSE(s.storage_version.empty());
    }
    if (leader == 0) leader = s.leader;
    CHECK(s.leader == leader);
    if (s.is_leader()) ++leaders;
  }
  CHECK(leaders == 1);

  // Hash and HashKV per member agree across members at one revision.
  auto rev = must(cl->put("/e2e/k", "v"), "put").revision;
  std::uint32_t h0 = 0;
  for (const auto& u : urls) {
    // A follower applies the put a moment after the leader answered it;
    // until then it calls the revision a future one (seen on a loaded CI run).
    auto hashed = cl->hash_kv(u, rev);
    for (int i = 0; i < 50 && !hashed && hashed.error().reason == etcd::reason::kFutureRevision; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      hashed = cl->hash_kv(u, rev);
    }
    auto h = must(std::move(hashed), "hashkv");
    if (h0 == 0) h0 = h.hash;
    CHECK(h.hash == h0);
    must(cl->hash(u), "hash");
  }

  // A stopped and a paused member cost the deadline, not more; the third answers.
  c.act("stop", "member-2");
  c.act("pause", "member-1");
  const auto budget = std::chrono::seconds(2);
  auto t0 = Clock::now();
  auto partial = cl->status_all(urls, std::chrono::system_clock::now() + budget);
  double took = seconds_since(t0);
  c.act("resume", "member-1");
  MESSAGE("fan-out with a stopped and a paused member took " << took << " s");
  CHECK(took < 2 * 1.5);
  REQUIRE(partial.size() == 3);
  CHECK(partial[0].result.ok());
  REQUIRE_FALSE(partial[1].result.ok());
  REQUIRE_FALSE(partial[2].result.ok());
  const auto& paused = partial[1].result.error();
  const auto& stopped = partial[2].result.error();
  MESSAGE("paused: " << paused.one_line());
  MESSAGE("stopped: " << stopped.one_line());
  CHECK((paused.kind == base::ErrorKind::Timeout || paused.kind == base::ErrorKind::CannotConnect));
  CHECK(stopped.kind == base::ErrorKind::CannotConnect);
  CHECK(paused.object == "endpoint " + urls[1]);
  CHECK(stopped.object == "endpoint " + urls[2]);
}

}  // namespace

TEST_CASE("status of each member and the fan-out deadline, etcd 3.4") { status_of_each_member("3.4"); }
TEST_CASE("status of each member and the fan-out deadline, etcd 3.5") { status_of_each_member("3.5"); }
TEST_CASE("status of each member and the fan-out deadline, etcd 3.6") { status_of_each_member("3.6"); }

TEST_CASE("cluster calls skip a stopped member") {
  e2e::EtcdCluster c(options("3.6", 3, true));
  c.act("stop", "member-0");
  auto cl = client_for(c);  // member-0 first in the list
  auto t0 = Clock::now();
  auto list = must(cl->member_list(), "member list with member-0 down");
  CHECK(list.members.size() == 3);
  CHECK(seconds_since(t0) < 5);
  // A key write is sent to another member only when the first never got it:
  // here it could not be, member-0 refusing the connection. A client of its
  // own: the first has since preferred a member that answered.
  auto writer = client_for(c);
  t0 = Clock::now();
  auto put = writer->put("/e2e/skip", "v");
  CHECK_MESSAGE(put.ok(), (put.ok() ? "" : put.error().one_line()));
  CHECK(seconds_since(t0) < 5);
  auto got = must(cl->range("/e2e/skip", {}), "read back");
  REQUIRE(got.kvs.size() == 1);
  CHECK(got.kvs[0].version == 1);
}

TEST_CASE("TLS: a member reached by IP is verified against the name it is certified for") {
  e2e::EtcdCluster c(options("3.6", 1, true, false, {"--peer-dns", "%s.etcd.test.svc"}));
  auto ip_url = c.ip_client_urls().at(0);

  SUBCASE("the DNS name is in the certificate, the IP with the override works") {
    auto cfg = config_for(c, true);
    cfg.tls.server_name = "member-0.etcd.test.svc";
    auto cl = make_client(cfg);
    must(cl->status(ip_url), "status by IP with server name");
  }
  SUBCASE("a name the certificate does not carry fails, naming the endpoint") {
    auto cfg = config_for(c, true);
    cfg.tls.server_name = "not-in-the-cert.example";
    auto cl = make_client(cfg);
    auto r = cl->status(ip_url);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == base::ErrorKind::CannotConnect);
    CHECK(r.error().object == "endpoint " + ip_url);
  }
  SUBCASE("in-memory PEM as read from Secrets") {
    auto slurp = [](const std::string& p) {
      std::ifstream f(p);
      std::stringstream ss;
      ss << f.rdbuf();
      return ss.str();
    };
    etcd::Config cfg;
    cfg.endpoints = c.client_urls();
    cfg.tls.ca_pem = slurp(c.pki("ca.crt"));
    cfg.tls.cert_pem = slurp(c.pki("client.crt"));
    cfg.tls.key_pem = slurp(c.pki("client.key"));
    auto cl = make_client(cfg);
    must(cl->member_list(), "member list with PEM");
  }
  SUBCASE("without the CA the server is not trusted") {
    auto cfg = config_for(c);
    cfg.tls.ca_file.clear();
    auto cl = make_client(cfg);
    auto r = cl->status(c.client_urls().at(0));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().kind == base::ErrorKind::CannotConnect);
  }
  SUBCASE("a mismatched client key is refused before dialling") {
    auto cfg = config_for(c);
    cfg.tls.key_file = c.pki("server.key");
    auto r = etcd::Client::create(cfg);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().message.find("does not match") != std::string::npos);
  }
}
