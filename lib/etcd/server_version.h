// What a member's version (its Status answer, "3.5.21") says about the
// calls it understands.
#pragma once

#include <string_view>

namespace etcd {

// MemberList honours `linearizable` from etcd 3.5 on; 3.4 ignores the field
// and answers from its own, possibly stale, view (docs/member-list.md).
// False for a version that cannot be read.
bool has_linearizable_member_list(std::string_view version);

}  // namespace etcd
