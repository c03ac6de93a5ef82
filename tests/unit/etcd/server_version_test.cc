#include <doctest/doctest.h>

#include "etcd/server_version.h"

TEST_CASE("MemberList is linearizable on request from etcd 3.5 on, not on 3.4 or an unreadable version") {
  CHECK(etcd::has_linearizable_member_list("3.5.0"));
  CHECK(etcd::has_linearizable_member_list("3.5.21"));
  CHECK(etcd::has_linearizable_member_list("3.6.11"));
  CHECK(etcd::has_linearizable_member_list("4.0.0"));
  CHECK_FALSE(etcd::has_linearizable_member_list("3.4.23"));
  CHECK_FALSE(etcd::has_linearizable_member_list("2.3.8"));
  CHECK_FALSE(etcd::has_linearizable_member_list(""));
  CHECK_FALSE(etcd::has_linearizable_member_list("v3.5.0"));
  CHECK_FALSE(etcd::has_linearizable_member_list("3"));
  CHECK_FALSE(etcd::has_linearizable_member_list("3."));
}
