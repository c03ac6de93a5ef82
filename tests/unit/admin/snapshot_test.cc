#include <doctest/doctest.h>

#include "admin/snapshot.h"

namespace {

base::Error dial_error() {
  return base::make_error(base::ErrorKind::CannotConnect, "cannot reach etcd: Socket closed",
                          "endpoint https://127.1.0.13:2379",
                          "check that the member runs and the endpoint, CA and server name are right");
}

}  // namespace

TEST_CASE("a stream that broke after bytes arrived: said of the member, a failure (1), the file as it was") {
  auto e = admin::snapshot_stream_error(dial_error(), "etcd-c9vks", "/b/snap.db", 33000);
  CHECK(e.kind == base::ErrorKind::Failed);
  CHECK(e.object == "member \"etcd-c9vks\" at https://127.1.0.13:2379");
  CHECK(e.one_line() ==
        "member \"etcd-c9vks\" at https://127.1.0.13:2379: the snapshot stream broke after 33000 bytes: cannot reach "
        "etcd: Socket closed; \"/b/snap.db\" is as it was; run again, or take it from another member with --member");
}

TEST_CASE("a member never reached keeps its dial error and hint, now naming the member") {
  auto e = admin::snapshot_stream_error(dial_error(), "etcd-c9vks", "/b/snap.db", 0);
  CHECK(e.kind == base::ErrorKind::CannotConnect);
  CHECK(e.object == "member \"etcd-c9vks\" at https://127.1.0.13:2379");
  CHECK(e.message == "cannot reach etcd: Socket closed");
  CHECK(e.hint.find("CA and server name") != std::string::npos);
}

TEST_CASE("a stalled stream stays a timeout (4) with its own message") {
  auto stalled = base::make_error(base::ErrorKind::Timeout, "snapshot stream stalled: no data for 2s",
                                  "endpoint https://127.1.0.2:2379", "the member may be paused or overloaded");
  auto e = admin::snapshot_stream_error(stalled, "etcd-0", "/b/s.db", 1 << 20);
  CHECK(e.kind == base::ErrorKind::Timeout);
  CHECK(e.message == "snapshot stream stalled: no data for 2s");
  CHECK(e.object == "member \"etcd-0\" at https://127.1.0.2:2379");
}

TEST_CASE("a member known only by its endpoint is not named twice") {
  auto e = admin::snapshot_stream_error(dial_error(), "https://127.1.0.13:2379", "/b/s.db", 0);
  CHECK(e.object == "member \"https://127.1.0.13:2379\"");
}
