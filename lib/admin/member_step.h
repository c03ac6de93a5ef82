// The steps of member surgery (docs/break-glass-design.md) as one type: a
// plan lists them, the step engine runs them, and each keeps the stable name
// the printed plan, the summary lines and the KUBECTL_ETCD_TEST_KILL_AFTER
// seam of the crash tests use.
#pragma once

#include <optional>
#include <string_view>

namespace admin {

enum class MemberStep {
  Scale,
  Grow,
  CreateMember,
  Register,
  Wire,
  Render,
  Record,
  Ready,
  Promote,
  MarkVoter,
  Pdb,
  MoveLeader,
  ClearId,
  DeleteMember,
  RemoveEtcd,
  Release,
  Count,
  WaitAdded,
  WaitRemoved,
  WaitFilled,
  ForceDeletePod,
  MarkRoll,
  DeletePod,
  WaitPod,
  Rejoin,
  UnmarkRoll,
};

const char* step_name(MemberStep step);
// The step of that name; none for an unknown one.
std::optional<MemberStep> parse_member_step(std::string_view name);

}  // namespace admin
