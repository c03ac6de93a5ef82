// What the planners of member surgery share (admin/member_plan.h): the
// facts read once from the live state, the checks every operation makes,
// and the steps several operations plan. The planners of each operation
// live in member_plan_add.cc (add, promote), member_plan_remove.cc (remove,
// replace) and member_plan_roll.cc; plan_member() in member_plan.cc picks
// one. Private to lib/admin.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "admin/member_plan.h"
#include "etcd/types.h"

namespace admin::member_planning {

using json = nlohmann::json;

struct Facts {
  std::vector<const json*> active, terminating, pending_members;
  std::size_t running = 0;
  bool any_dormant = false;
  long long spec_replicas = 0, observed = 0;
  std::size_t voters = 0, healthy_voters = 0;
  std::vector<const etcd::Member*> learners;
};

bool pending(const json& o);
bool has_condition(const json& o, const std::string& type);
Facts facts_of(const LiveState& s);
// The EtcdMember an etcd member stands for.
const json* member_for(const LiveState& s, const etcd::Member& e);
void step(MemberPlan& p, MemberStep id, std::string text);

void common_checks(const LiveState& s, const Facts& f, MemberPlan& p);
void mode_checks(const LiveState& s, const MemberRequest& r, MemberPlan& p);
void in_flight_checks(const LiveState& s, const Facts& f, MemberPlan& p, const std::string& except);
void handover_step(const LiveState& s, const MemberRequest& r, MemberPlan& p, const std::string& target,
                   const etcd::Member& e, const std::string& cost);
void force_delete_step(const LiveState& s, MemberPlan& p);

void add_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p, bool gap_only);
void promote_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p);
void remove_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p, bool replace);
void roll_steps(const LiveState& s, const Facts& f, const MemberRequest& r, MemberPlan& p);

}  // namespace admin::member_planning
